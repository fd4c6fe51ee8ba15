import type { Collection, Db } from 'mongodb';
import type { RequestRecordDoc } from './request-record-types.js';

/** The request records collection. */
export interface RecordCollections {
  readonly requestRecords: Collection<RequestRecordDoc>;
}

/** The request records collection of a database (its name lives here only). */
export function recordCollections(db: Db): RecordCollections {
  return { requestRecords: db.collection<RequestRecordDoc>('request_records') };
}
