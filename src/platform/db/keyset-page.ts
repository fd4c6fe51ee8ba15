import type { Collection, Filter } from 'mongodb';
import { GatewayError } from '../errors/index.js';

/** A document listed newest first: its creation time, ties broken by its string id. */
export interface Dated {
  _id: string;
  created_at: Date;
}

/** One page of a newest-first list, with the opaque cursor of the next page (null at the end). */
export interface KeysetPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** Newest first, ties broken by id: the order of every paged list and export. */
export const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

function encodeCursor(doc: Dated): string {
  return Buffer.from(JSON.stringify([doc.created_at.getTime(), doc._id])).toString('base64url');
}

function decodeCursor(cursor: string): [Date, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') return [new Date(value[0] as number), value[1]];
  } catch {
    // fall through to the error below
  }
  throw new GatewayError('invalid_request', 'cursor is not valid', { param: 'cursor' });
}

/**
 * One page of `filter`'s matches, newest first, after `cursor`. The cursor is the last
 * item's (created_at, id), so pages stay stable while new documents arrive.
 */
export async function keysetPage<T extends Dated>(collection: Collection<T>, filter: Filter<T>, limit: number, cursor?: string): Promise<KeysetPage<T>> {
  let query = filter;
  if (cursor !== undefined && cursor !== '') {
    const [at, id] = decodeCursor(cursor);
    const after = { $or: [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: id } }] } as Filter<T>;
    query = { $and: [filter, after] } as Filter<T>;
  }
  const docs = (await collection.find(query).sort(NEWEST_FIRST).limit(limit + 1).toArray()) as T[];
  const items = docs.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: docs.length > limit && last !== undefined ? encodeCursor(last) : null };
}
