import { SESSION_COOKIE } from '../routes/console/session-cookie.js';
import { SCHEMAS } from './openapi-components.js';
import type { Paths } from './openapi-builders.js';
import { accountPaths } from './openapi-paths-account.js';
import { adminPaths } from './openapi-paths-admin.js';
import { serviceAndDoorPaths } from './openapi-paths-service.js';
import { webhookPaths } from './openapi-paths-webhooks.js';

const SECURITY_SCHEMES = {
  operator: { type: 'http', scheme: 'bearer', description: 'The operator token (`ADMIN_TOKEN`).' },
  key: { type: 'http', scheme: 'bearer', description: 'A Farebox key (`sk-fbx-…`): an inference key or a management key, as each operation says.' },
  console: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'A console session (see `POST /console/session`); accepted where no Authorization header is sent.',
  },
};

function buildPaths(): Paths {
  const paths: Paths = {};
  const operator = { tags: ['Operator'], auth: ['operator', 'console'] };
  adminPaths(paths, operator);
  accountPaths(paths, {
    anyKey: { tags: ['Account'], auth: ['key'] },
    management: { tags: ['Account'], auth: ['key', 'console'] },
    inference: { tags: ['Account'], auth: ['key'] },
  });
  webhookPaths(paths, { tags: ['Webhooks'], auth: ['key', 'console'] }, { ...operator, tags: ['Webhooks'] });
  serviceAndDoorPaths(paths);
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
}

let built: Record<string, unknown> | undefined;

/**
 * The OpenAPI 3.1 description of Farebox's own API: the operator API, keys, quote, receipts,
 * request records, usage, webhooks, token counts, the catalog and the service routes. The
 * vendor doors (chat, responses, messages, embeddings, images, OCR) are listed by reference to
 * their vendors' specs. Built once per process.
 */
export function openApiDocument(): Record<string, unknown> {
  built ??= {
    openapi: '3.1.0',
    info: {
      title: 'Farebox',
      version: '1',
      description: 'Prepaid, metered, OpenAI-compatible model gateway. Answers wrap in `data`; errors are `{error: {message, type, code, param}}`. See docs/api.md.',
    },
    servers: [{ url: '/' }],
    tags: ['Operator', 'Account', 'Webhooks', 'Token counts', 'Receipts', 'Catalog', 'Inference', 'Service', 'Console'].map((name) => ({ name })),
    paths: buildPaths(),
    components: {
      schemas: SCHEMAS,
      responses: { Error: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
  return built;
}
