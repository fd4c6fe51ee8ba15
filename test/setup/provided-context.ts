/** Keys under which the global setup hands service URLs to test files (vitest `inject`). */
export const REDIS_URL_KEY = 'fareboxRedisUrl';
export const MONGO_URI_KEY = 'fareboxMongoUri';

/** Environment names carrying the same URLs to processes that tests spawn (e2e web/worker). */
export const REDIS_URL_ENV = 'FAREBOX_TEST_REDIS_URL';
export const MONGO_URI_ENV = 'FAREBOX_TEST_MONGODB_URI';

declare module 'vitest' {
  export interface ProvidedContext {
    fareboxRedisUrl: string;
    fareboxMongoUri: string;
  }
}
