# One image for every process: web (default), worker and release, chosen by command:
#   docker run IMAGE                                   web on $PORT (8080)
#   docker run IMAGE node dist/workers/main.js         worker
#   docker run IMAGE node dist/scripts/release.js      release (indexes + catalog), run once
# BASE_IMAGE must be a glibc Debian/Ubuntu image with Node 20 and npm (sharp and @napi-rs/canvas
# ship prebuilt glibc binaries; tesseract runs as WASM with its bundled English data).
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY scripts ./scripts
RUN npm run build

FROM ${BASE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080
WORKDIR /app
# Production dependencies only; npm's cache is not kept in the image.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
# Data files read at run time, found beside their source (PROVIDERS_FILE, CATALOG_FILE defaults).
COPY src/providers/providers.json ./src/providers/providers.json
COPY src/catalog/seed-models.json ./src/catalog/seed-models.json
# The console's page, scripts and styles, served as they are.
COPY src/console/public ./src/console/public
# Admission's Lua scripts, registered on the Redis clients at run time.
COPY src/admission/lua ./src/admission/lua
# A system user of our own, so the image does not depend on the base having one.
RUN groupadd --system farebox \
 && useradd --system --gid farebox --home-dir /app --shell /usr/sbin/nologin farebox \
 && mkdir -p /var/lib/farebox/spool && chown -R farebox:farebox /var/lib/farebox
# The charge spool; mount persistent storage here (a named volume starts with this ownership).
ENV CHARGE_SPOOL_DIR=/var/lib/farebox/spool
USER farebox
EXPOSE 8080
# Node itself probes /healthz, so the image needs no curl or wget.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/http/server.js"]
