import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import { NEWEST_FIRST } from '../../platform/db/index.js';
import { formatUsd } from '../../billing/index.js';
import type { LedgerDoc } from '../ledger-types.js';
import { recordFilter } from './record-query.js';
import { createdWithin, type RecordFilters, type TimeRange } from './record-filters.js';
import type { RequestRecordDoc } from './request-record-types.js';
import type { LedgerCollections } from '../ledger-collection.js';
import type { RecordCollections } from './record-collection.js';

type Cell = string | number | boolean | null;

/**
 * Text a spreadsheet would run as a formula (client-chosen model names, references) gets a
 * leading quote, as OWASP advises for CSV exports.
 */
function text(value: string | null): string | null {
  return value !== null && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const RECORD_COLUMNS = ['id', 'created_at', 'account_id', 'key_id', 'end_user', 'endpoint', 'model', 'provider', 'stream', 'status', 'error_code',
  'input_tokens', 'output_tokens', 'images', 'pages', 'cost_usd', 'latency_ms'];

function recordRow(r: RequestRecordDoc): Cell[] {
  const u = r.usage;
  return [r._id, r.created_at.toISOString(), r.account_id, r.key_id, r.end_user ?? null, r.endpoint, text(r.model), text(r.provider), r.stream, r.status, r.error_code,
    u.input_tokens ?? null, u.output_tokens ?? null, u.images ?? null, u.pages ?? null, formatUsd(r.cost), r.latency_ms];
}

const LEDGER_COLUMNS = ['id', 'created_at', 'account_id', 'kind', 'key_id', 'model', 'reference', 'credit_usd', 'cost_usd', 'charged_usd', 'absorbed_usd', 'units'];

function ledgerRow(e: LedgerDoc): Cell[] {
  return [e._id, e.created_at.toISOString(), e.account_id, e.kind, e.key_id, text(e.model), text(e.reference),
    formatUsd(e.credit), formatUsd(e.cost), formatUsd(e.charged), formatUsd(e.absorbed), e.units === null ? null : JSON.stringify(e.units)];
}

/**
 * CSV text streamed from a cursor: rows are read as the client takes them (backpressure),
 * and the cursor closes when the client goes away. Money is exact decimal text.
 */
function csvStream<T>(docs: AsyncIterable<T>, columns: string[], row: (doc: T) => Cell[], onError: (err: Error) => void): Readable {
  async function* rows(): AsyncGenerator<Cell[]> {
    for await (const doc of docs) yield row(doc);
  }
  return pipeline(Readable.from(rows()), stringify({ header: true, columns, cast: { boolean: (v) => String(v) } }), (err) => {
    if (err) onError(err);
  });
}

/** Request records matching the filters, newest first, as CSV. */
export function recordsCsv(c: RecordCollections, f: RecordFilters, onError: (err: Error) => void): Readable {
  return csvStream(c.requestRecords.find(recordFilter(f)).sort(NEWEST_FIRST), RECORD_COLUMNS, recordRow, onError);
}

/** Ledger entries (charges, top-ups, grants), newest first, as CSV. */
export function ledgerCsv(c: LedgerCollections, range: TimeRange, accountId: string | undefined, onError: (err: Error) => void): Readable {
  const filter = { ...(accountId === undefined ? {} : { account_id: accountId }), ...createdWithin(range) };
  // Without an account no index gives this order (the ledger is indexed per account, and an
  // index only for exports would slow every charge): MongoDB may sort on disk instead.
  return csvStream(c.ledger.find(filter).sort(NEWEST_FIRST).allowDiskUse(true), LEDGER_COLUMNS, ledgerRow, onError);
}
