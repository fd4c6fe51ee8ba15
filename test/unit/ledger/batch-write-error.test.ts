import type { Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { BatchCommands } from '../../../src/ledger/batch-commands.js';
import { classifyError } from '../../../src/platform/errors/index.js';

/** The error a batch's `insert` throws for the reply MongoDB gave. */
async function thrownFor(reply: object): Promise<unknown> {
  const commands = new BatchCommands({ command: async () => ({ ok: 1, n: 0, ...reply }) } as unknown as Db);
  return commands.insert({ collectionName: 'ledger' }, [{ _id: 'req_1' }], {} as never).then(
    () => undefined,
    (err: unknown) => err,
  );
}

const labelled = (err: unknown, label: string): boolean => (err as { hasErrorLabel(l: string): boolean }).hasErrorLabel(label);

describe('a document-level error of a ledger batch', () => {
  it('whose code says the primary changed is a transient transaction error, and a 503', async () => {
    for (const code of [11602, 10107, 189, 91]) {
      const err = await thrownFor({ writeErrors: [{ index: 0, code, errmsg: 'operation was interrupted' }] });
      expect(labelled(err, 'TransientTransactionError'), String(code)).toBe(true);
      expect(classifyError(err).code, String(code)).toBe('service_unavailable');
    }
  });

  it('keeps the labels MongoDB put on the reply', async () => {
    const err = await thrownFor({ writeErrors: [{ index: 0, code: 112, errmsg: 'write conflict' }], errorLabels: ['TransientTransactionError'] });
    expect(labelled(err, 'TransientTransactionError')).toBe(true);
    expect(classifyError(err).status).toBe(503);
  });

  it('is a duplicate key, neither transient nor retried, when the request id is already charged', async () => {
    const err = await thrownFor({ writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key' }] });
    expect(err).toMatchObject({ code: 11000, name: 'BatchWriteError' });
    expect(labelled(err, 'TransientTransactionError')).toBe(false);
    expect(classifyError(err).status).toBe(500);
  });

  it('is nothing when the reply has no write errors', async () => {
    expect(await thrownFor({ n: 1 })).toBeUndefined();
  });
});
