import { z } from 'zod';
import { MAX_END_USER_LENGTH } from '../../../admission/index.js';

const DAY_MS = 86_400_000;
/** Range of a usage query without `from`: the 30 days before `to`. */
export const DEFAULT_USAGE_DAYS = 30;

const publicId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,100}$`), `must be a ${prefix}_… id`);

/**
 * A time bound: an ISO date-time with offset, or a UTC day (`YYYY-MM-DD`). A day given as
 * `to` means the end of that day, so `from=2026-11-01&to=2026-11-30` covers all of November.
 */
const instant = (end: boolean) =>
  z.union([z.iso.date(), z.iso.datetime({ offset: true })]).transform((text, ctx) => {
    const day = text.length === 10;
    const at = new Date(day ? `${text}T00:00:00Z` : text);
    if (Number.isNaN(at.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'is not a valid date' });
      return z.NEVER;
    }
    return day && end ? new Date(at.getTime() + DAY_MS) : at;
  });

const range = { from: instant(false).optional(), to: instant(true).optional() };
/** An end user as clients name it (`user`): 1 to 256 characters, as admission accepts. */
const endUser = z.string().min(1).max(MAX_END_USER_LENGTH).optional();
const filters = { ...range, key_id: publicId('key').optional(), model: z.string().min(1).max(200).optional(), end_user: endUser };
const page = { limit: z.coerce.number().int().min(1).max(500).default(50), cursor: z.string().min(1).max(500).optional() };

/** `GET /v1/requests`. */
export const recordListSchema = z.object({ ...filters, ...page });
/** `GET /v1/admin/requests`. */
export const adminRecordListSchema = z.object({ ...filters, ...page, account_id: publicId('acct').optional() });
/** `GET /v1/usage`; `account_id`, when given, must be the key's own account. */
export const usageSchema = z.object({ ...range, account_id: publicId('acct').optional(), end_user: endUser });
/** `GET /v1/admin/usage`. */
export const adminUsageSchema = z.object({ ...range, account_id: publicId('acct').optional(), end_user: endUser });
/** `GET /v1/admin/ledger.csv` (ledger entries do not name end users). */
export const ledgerCsvSchema = z.object({ ...range, account_id: publicId('acct').optional() });
/** `GET /v1/admin/requests.csv`. */
export const recordsCsvSchema = z.object({ ...filters, account_id: publicId('acct').optional() });

/** A usage range with its defaults: up to now, from 30 days before its end. */
export function usageRange(q: { from?: Date; to?: Date }, now: Date): { from: Date; to: Date } {
  const to = q.to ?? now;
  return { from: q.from ?? new Date(to.getTime() - DEFAULT_USAGE_DAYS * DAY_MS), to };
}

/** Request ids are `req_` + hex; anything else cannot name a record. */
export function isRequestId(value: string): boolean {
  return /^req_[A-Za-z0-9]{1,100}$/.test(value);
}
