import { z } from 'zod';

/** `POST /v1/admin/accounts`. */
export const createAccountSchema = z.strictObject({ name: z.string().min(1).max(200).nullable().optional() });

/** Top-ups and grants: an amount and the caller's idempotency reference. */
export const creditSchema = z.strictObject({
  amount_usd: z.union([z.number(), z.string()]),
  reference: z.string().regex(/^[A-Za-z0-9._:@-]{1,200}$/, 'must be 1-200 characters of A-Z a-z 0-9 . _ : @ -'),
});

/** Ledger pagination query. */
export const ledgerQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
});

/** `GET /v1/admin/accounts`: page size, cursor and an optional search on id or name. */
export const accountListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
  q: z.string().trim().max(200).optional(),
});
