import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ChargeSpool } from '../../../src/ledger/charge-spool.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fbx-spool-unit-'));
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid!;
}

const charge = (id: string, cost: bigint) => ({ requestId: id, accountId: 'acct_1', keyId: 'key_1', model: 'local/echo', cost, units: { prompt: 3 }, at: new Date('2026-03-10T12:00:00Z') });

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('ChargeSpool', () => {
  it('writes each charge to disk before resolving and forgets a segment once committed', async () => {
    const dir = await freshDir();
    const spool = new ChargeSpool(dir, log);
    await spool.start();
    await Promise.all([spool.append(charge('req_a', 5n)), spool.append(charge('req_b', 123_456_789_012n))]);
    expect(spool.size()).toBe(2);
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    const lines = (await readFile(path.join(dir, file!), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).cost)).toEqual(['5', '123456789012']);
    const segments = await spool.seal();
    expect(segments.flatMap((s) => s.charges.map((c) => c.cost))).toEqual([5n, 123_456_789_012n]);
    for (const s of segments) await spool.done(s);
    expect(spool.size()).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps a charge’s over-limit excess, lines and price version through the spool', async () => {
    const dir = await freshDir();
    const spool = new ChargeSpool(dir, log);
    await spool.start();
    await Promise.all([spool.append({ ...charge('req_c', 900n), overLimit: 400n, lines: [{ component: 'prompt', units: 1, unit_price_usd: '0.0000013', amount_usd: '0.0000013' }], priceVersion: 'v1' }), spool.append(charge('req_d', 7n))]);
    const segments = await spool.seal();
    expect(segments.flatMap((s) => s.charges.map((c) => [c.requestId, c.overLimit, c.priceVersion, c.lines?.length]))).toEqual([['req_c', 400n, 'v1', 1], ['req_d', undefined, undefined, undefined]]);
    for (const s of segments) await spool.done(s);
  });

  it("adopts a dead process's segment, skipping a torn last line", async () => {
    const dir = await freshDir();
    const first = new ChargeSpool(dir, log);
    await first.start();
    await first.append(charge('req_kept', 7n));
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    const text = await readFile(path.join(dir, file!), 'utf8');
    await writeFile(path.join(dir, `spool-${await deadPid()}-abcdef.jsonl`), `${text}{"requestId":"req_torn","acc`);
    const second = new ChargeSpool(dir, log);
    await second.start();
    const adopted = (await second.seal()).flatMap((s) => s.charges);
    expect(adopted.map((c) => [c.requestId, c.cost, c.at.toISOString(), c.units])).toEqual([['req_kept', 7n, '2026-03-10T12:00:00.000Z', { prompt: 3 }]]);
  });

  it('adopts a file of an earlier process with the same pid (a restarted container), not its own', async () => {
    const dir = await freshDir();
    const line = `${JSON.stringify({ requestId: 'req_before_restart', accountId: 'acct_1', keyId: 'key_1', model: 'm', cost: '3', at: '2026-03-10T12:00:00.000Z' })}\n`;
    await writeFile(path.join(dir, `spool-${process.pid}-0123456789ab.jsonl`), line);
    const spool = new ChargeSpool(dir, log);
    await spool.start();
    await spool.append(charge('req_now', 1n));
    await spool.adopt();
    const ids = (await spool.seal()).flatMap((s) => s.charges.map((c) => c.requestId));
    expect(ids.sort()).toEqual(['req_before_restart', 'req_now']);
  });

  it('writes charges that arrive together in one group and drains the open file without sealing it', async () => {
    const dir = await freshDir();
    let now = 1_000;
    const spool = new ChargeSpool(dir, log, undefined, () => now);
    await spool.start();
    await Promise.all(Array.from({ length: 40 }, (_, i) => spool.append(charge(`req_g${i}`, BigInt(i + 1)))));
    const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    expect((await readFile(path.join(dir, files[0]!), 'utf8')).trim().split('\n')).toHaveLength(40);
    expect([spool.size(), spool.oldest()]).toEqual([40, 1_000]);

    const tail = spool.tail();
    expect(tail?.charges.map((c) => c.requestId)).toEqual(Array.from({ length: 40 }, (_, i) => `req_g${i}`));
    now = 1_010;
    await spool.append(charge('req_late', 5n));
    await spool.tailDrained(tail!.upTo, 5_000);
    // Only the charge appended after the tail was taken is still waiting, in the same file.
    expect([spool.size(), spool.oldest(), spool.tail()?.charges.map((c) => c.requestId)]).toEqual([1, 1_010, ['req_late']]);
    expect((await readdir(dir)).filter((f) => f.endsWith('.jsonl'))).toEqual(files);

    // Drained and old enough: the file goes, and the next charge starts a new one.
    now = 7_000;
    await spool.tailDrained(spool.tail()!.upTo, 5_000);
    expect([spool.size(), spool.oldest()]).toEqual([0, undefined]);
    expect((await readdir(dir)).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
    await spool.append(charge('req_next', 1n));
    expect((await readdir(dir)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  });
});
