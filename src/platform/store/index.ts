/**
 * Database collections and their preparation.
 * This file is the module's face: code outside the module imports from here only.
 */
export { collections, type Collections } from './collections.js';
export { prepareDatabase } from './prepare-database.js';
