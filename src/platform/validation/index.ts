/**
 * Request validation with zod, mapped to the error table.
 * This file is the module's face: code outside the module imports from here only.
 */
export { validate } from './validate.js';
