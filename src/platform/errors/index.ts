/**
 * The error table, gateway errors and the one error serializer.
 * This file is the module's face: code outside the module imports from here only.
 */
export { classifyError, malformedBody } from './classify-error.js';
export { ERROR_TABLE, type ErrorCode } from './error-table.js';
export { GatewayError, isGatewayError, toGatewayError } from './gateway-error.js';
export { type ErrorBody, errorHeaders, serializeError } from './serialize.js';
export { isFailoverCode } from './transient-store-error.js';
