/**
 * Exact money. Amounts are integer nano-USD (`bigint`, stored as int64); unit prices are
 * integer atto-USD so that per-token prices like $0.0375 per million stay exact until a
 * request's total is rounded once to nano-USD.
 */
import { GatewayError } from '../platform/errors/index.js';

/** Integer nano-USD (1e-9 USD). */
export type Nano = bigint;
/** Integer atto-USD (1e-18 USD), used only for unit prices and their products. */
export type Atto = bigint;

const NANO_DIGITS = 9;
const ATTO_DIGITS = 18;
const ATTO_PER_NANO = 10n ** 9n;
/** Named once: a BigInt power is computed, and allocated, every time it is evaluated. */
const NANO_PER_USD = 10n ** 9n;
const ATTO_PER_USD = 10n ** 18n;
/** Largest single credit accepted: one million USD. */
const MAX_CREDIT_NANO = 1_000_000n * NANO_PER_USD;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

function parseDecimal(text: string, digits: number): bigint | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  return BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
}

function decimalText(value: number | string): string | null {
  if (typeof value === 'string') return value.trim();
  if (!Number.isFinite(value)) return null;
  // Shortest round-trip form; exponent forms (1e-7) are expanded so the parser sees digits.
  const text = String(value);
  return text.includes('e') ? value.toFixed(20).replace(/0+$/, '') : text;
}

/**
 * Parses a client-supplied USD amount (number or decimal string) into nano-USD.
 * Rejects zero, negatives, more than nine decimals and anything absurdly large.
 */
export function parseUsdAmount(value: unknown, param: string): Nano {
  const text = typeof value === 'number' || typeof value === 'string' ? decimalText(value) : null;
  const nano = text === null ? null : parseDecimal(text, NANO_DIGITS);
  if (nano === null) {
    throw new GatewayError('invalid_request', `${param} must be a positive USD amount with at most 9 decimals`, { param });
  }
  if (nano <= 0n) throw new GatewayError('invalid_request', `${param} must be greater than zero`, { param });
  if (nano > MAX_CREDIT_NANO) throw new GatewayError('invalid_request', `${param} must be at most 1000000`, { param });
  return nano;
}

/** Parses a catalog unit price (decimal string, ≥ 0) into atto-USD; throws on anything else. */
export function parsePrice(value: string | number): Atto {
  const text = decimalText(value);
  const atto = text === null ? null : parseDecimal(text, ATTO_DIGITS);
  if (atto === null) throw new Error(`invalid price ${String(value)}`);
  return atto;
}

/** Rounds an atto-USD total to nano-USD, half up (costs are never negative). */
export function attoToNano(atto: Atto): Nano {
  return (atto + ATTO_PER_NANO / 2n) / ATTO_PER_NANO;
}

/** Rounds an atto-USD amount up to whole nano-USD (what a hold must cover). */
export function ceilAttoToNano(atto: Atto): Nano {
  return (atto + ATTO_PER_NANO - 1n) / ATTO_PER_NANO;
}

/** Decimal text of `amount / unit` without trailing zeros; `digits` is log10(unit). */
function decimalOf(amount: bigint, unit: bigint, digits: number): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const fraction = (abs % unit).toString().padStart(digits, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / unit}${fraction ? `.${fraction}` : ''}`;
}

/** Unit prices already written as text: a catalog has few of them, and each request shows some. */
const attoTexts = new Map<Atto, string>();
const MAX_ATTO_TEXTS = 10_000;

/** Unit prices in atto-USD as decimal USD text (up to 18 decimals). */
export function attoUsd(atto: Atto): string {
  let text = attoTexts.get(atto);
  if (text === undefined) {
    if (attoTexts.size >= MAX_ATTO_TEXTS) attoTexts.clear();
    text = decimalOf(atto, ATTO_PER_USD, ATTO_DIGITS);
    attoTexts.set(atto, text);
  }
  return text;
}

const SAFE_NANO = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Exact decimal text of a nano-USD amount, without trailing zeros (`0.000123`). Every answer
 * shows one, so amounts under nine million USD (all of them, in practice) are written with
 * float-free Number arithmetic: integer `%` and the division of an exact multiple are exact
 * below 2^53, and cost a fraction of BigInt division and a regular expression.
 */
export function formatUsd(nano: Nano): string {
  if (nano > SAFE_NANO || nano < -SAFE_NANO) return decimalOf(nano, NANO_PER_USD, NANO_DIGITS);
  const n = Number(nano);
  const abs = n < 0 ? -n : n;
  let fraction = abs % 1e9;
  const whole = (abs - fraction) / 1e9;
  const sign = n < 0 ? '-' : '';
  if (fraction === 0) return `${sign}${whole}`;
  let digits = NANO_DIGITS;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${sign}${whole}.${String(fraction).padStart(digits, '0')}`;
}

/**
 * A nano-USD amount as a JSON number. Exact for amounts below ~9 million USD: the decimal
 * text has at most 16 significant digits, so parsing it back with 9 decimals is lossless.
 */
export function toUsdNumber(nano: Nano): number {
  return Number(formatUsd(nano));
}

/** Minimum of two bigints. */
export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** Maximum of two bigints. */
export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/** Parses a spend cap: like {@link parseUsdAmount} but zero is allowed (a cap of nothing). */
export function parseUsdCap(value: unknown): Nano {
  if (value === 0 || value === '0') return 0n;
  return parseUsdAmount(value, 'spend_cap_usd');
}
