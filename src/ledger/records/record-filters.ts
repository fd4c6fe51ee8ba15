/** What a list, usage or export may be narrowed to; `from` inclusive, `to` exclusive. */
export interface TimeRange {
  from?: Date;
  to?: Date;
}

/** Filters of the request-record lists and exports. */
export interface RecordFilters extends TimeRange {
  accountId?: string;
  keyId?: string;
  model?: string;
  /** The end user the requests named. */
  endUser?: string;
}

/** The `created_at` condition of a time range, if it has a bound. */
export function createdWithin(range: TimeRange): { created_at?: { $gte?: Date; $lt?: Date } } {
  if (range.from === undefined && range.to === undefined) return {};
  const created: { $gte?: Date; $lt?: Date } = {};
  if (range.from !== undefined) created.$gte = range.from;
  if (range.to !== undefined) created.$lt = range.to;
  return { created_at: created };
}
