/**
 * Database collections and their preparation: every domain's collections and indexes put
 * together, for the composition root and the release step.
 * This file is the module's face: code outside the module imports from here only.
 */
export { collections, type Collections } from './collections.js';
export { prepareDatabase } from './prepare-database.js';
