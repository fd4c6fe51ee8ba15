import type { Logger } from 'pino';
import { type AccountCollections, type KeyCollections, lifetimeSpend, periodSpend } from '../accounts/index.js';
import { type Clock, dayPeriod, monthPeriod, toUsdNumber } from '../billing/index.js';
import type { LedgerBatch, LedgerWriterObserver } from '../ledger/index.js';
import type { EndpointService } from './endpoint-service.js';
import { balanceEvents, reachedThresholds } from './thresholds.js';
import type { WebhookEmitter } from './webhook-emitter.js';

/** How long charges gather before their accounts are checked (one check per account per tick). */
const TICK_MS = 20;

/**
 * Watches committed charges for crossings: `balance.low`, `balance.depleted` and
 * `budget.threshold` of each key cap window. It runs after the ledger commit, off the request
 * path, batched per tick; accounts without endpoints are skipped on a cached lookup. Each
 * crossing has a fixed event id, so however many batches (or processes) see it, it goes out once.
 */
export class SpendWatcher implements LedgerWriterObserver {
  private pending = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly c: AccountCollections & KeyCollections,
    private readonly endpoints: EndpointService,
    private readonly emitter: WebhookEmitter,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Ledger hook: remembers the batch's accounts and keys for the next check. */
  batchFinished(batch: LedgerBatch, _seconds: number, ok: boolean): void {
    if (!ok) return;
    for (const account of batch.accounts) {
      const keys = this.pending.get(account) ?? new Set<string>();
      for (const key of batch.keys) keys.add(key);
      this.pending.set(account, keys);
    }
    this.timer ??= setTimeout(() => this.flush(), TICK_MS);
    this.timer.unref();
  }

  /** Waits for the checks scheduled so far (shutdown, tests). */
  async settle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.flush();
    }
    await this.running;
  }

  private flush(): void {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    this.running = this.running.then(() => this.checkAll(batch)).catch((err: unknown) => this.log.warn({ err }, 'webhook spend check failed'));
  }

  private async checkAll(batch: Map<string, Set<string>>): Promise<void> {
    await Promise.all([...batch].map(async ([accountId, keys]) => {
      if (!(await this.endpoints.any(accountId))) return;
      await this.checkBalance(accountId);
      await Promise.all([...keys].map((keyId) => this.checkKey(accountId, keyId)));
    }));
  }

  private async checkBalance(accountId: string): Promise<void> {
    const account = await this.c.accounts.findOne({ _id: accountId }, { projection: { balance: 1, topped_up: 1, granted: 1, balance_low_threshold: 1 } });
    if (!account) return;
    // Each funding level arms the events again: a top-up after `balance.low` can see another.
    const funded = account.topped_up + account.granted;
    for (const type of balanceEvents(account.balance, funded, account.balance_low_threshold)) {
      const data: Record<string, unknown> = { account_id: accountId, balance_usd: toUsdNumber(account.balance) };
      if (type === 'balance.low') data.threshold_usd = toUsdNumber(account.balance_low_threshold ?? 0n);
      await this.emitter.emit({ accountId, type, data, once: `${funded}:${type === 'balance.low' ? String(account.balance_low_threshold) : ''}` });
    }
  }

  private async checkKey(accountId: string, keyId: string): Promise<void> {
    const key = await this.c.keys.findOne({ _id: keyId, account_id: accountId }, { projection: { limits: 1, spend: 1 } });
    const caps = key?.limits.spend_cap;
    if (!key || !caps) return;
    const now = this.clock();
    const windows: Array<['lifetime' | 'day' | 'month', string, bigint | undefined]> = [
      ['lifetime', 'lifetime', caps.lifetime],
      ['day', dayPeriod(now), caps.day],
      ['month', monthPeriod(now), caps.month],
    ];
    // Read once, and only when a cap needs it.
    const periods = caps.day === undefined && caps.month === undefined ? undefined : await periodSpend(this.c, key._id, now);
    const lifetime = caps.lifetime === undefined ? 0n : ((await lifetimeSpend(this.c, [key])).get(key._id) ?? 0n);
    for (const [window, period, cap] of windows) {
      if (cap === undefined) continue;
      const spend = window === 'lifetime' ? lifetime : (periods?.[window] ?? 0n);
      for (const pct of reachedThresholds(spend, cap)) {
        const data = { account_id: accountId, key_id: keyId, window, period, threshold_percent: pct, cap_usd: toUsdNumber(cap), spend_usd: toUsdNumber(spend) };
        await this.emitter.emit({ accountId, type: 'budget.threshold', data, once: `${keyId}:${period}:${cap}:${pct}` });
      }
    }
  }

}
