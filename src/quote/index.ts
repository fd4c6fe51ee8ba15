/**
 * Quotes: the worst-case cost of a request before it is sent.
 * This file is the module's face: code outside the module imports from here only.
 */
export { ceilingAdmission, CeilingRegistry } from './cost-ceiling.js';
export { endpointWorstCase, QUOTE_ENDPOINTS, type QuoteDeps } from './endpoint-worst-case.js';
export { holdQuote } from './hold-quote.js';
export { capCheckName, checkRooms, type Rooms } from './quote-checks.js';
