/**
 * What the failover loop needs to know of one route, whatever it serves (a chat route, an
 * image or OCR job's route): the breaker's key and the names an attempt record shows.
 */
export interface RouteTarget {
  /** The route's key in the breaker and metrics: `<model id>@<provider>/<upstream model>`. */
  readonly key: string;
  readonly providerId: string;
  /** The catalog id this route serves. */
  readonly entryId: string;
  readonly upstreamModel: string;
}

/** The breaker key of a route: one form for chat and job routes, so series and health agree. */
export function routeKey(entryId: string, providerId: string, upstreamModel: string): string {
  return `${entryId}@${providerId}/${upstreamModel}`;
}
