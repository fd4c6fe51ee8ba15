/**
 * MongoDB connection, health and paging helpers.
 * This file is the module's face: code outside the module imports from here only.
 */
export { keysetPage, NEWEST_FIRST } from './keyset-page.js';
export { DUPLICATE_KEY } from './mongo-codes.js';
export { MongoHealth } from './mongo-health.js';
export { connectMongo, type Mongo, openMongo } from './mongo.js';
export { connectWritable } from './writable-primary.js';
