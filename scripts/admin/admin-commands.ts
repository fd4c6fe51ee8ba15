import {
  createKeySchema,
  patchKeySchema,
  sharedLimitsSchema,
  toAccountDetailView,
  toAccountView,
  toKeyView,
  toSharedLimits,
} from '../../src/accounts/index.js';
import { parseUsdAmount } from '../../src/billing/index.js';
import { modelInputSchema } from '../../src/catalog/index.js';
import type { Deps } from '../../src/deps.js';
import { GatewayError } from '../../src/platform/errors/index.js';
import { validate } from '../../src/platform/validation/index.js';
import { toLedgerView } from '../../src/ledger/index.js';

/** Parsed command line: positional words and `--name value` options. */
export interface CliArgs {
  positionals: string[];
  options: Record<string, string | undefined>;
}

type Command = (deps: Deps, args: CliArgs) => Promise<unknown>;

function arg(args: CliArgs, index: number, name: string): string {
  const value = args.positionals[index];
  if (!value) throw new GatewayError('invalid_request', `missing <${name}>`, { param: name });
  return value;
}

function json(text: string | undefined): unknown {
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

async function credit(deps: Deps, args: CliArgs, kind: 'topup' | 'grant') {
  const amount = parseUsdAmount(arg(args, 1, 'amount_usd'), 'amount_usd');
  const reference = args.options.reference;
  if (!reference) throw new GatewayError('invalid_request', '--reference is required', { param: 'reference' });
  const r = await deps.credits.credit(arg(args, 0, 'account_id'), kind, amount, reference);
  return { created: r.created, entry: toLedgerView(r.entry), account: toAccountView(r.account) };
}

/** The operator CLI's commands: the same service code as the operator API. */
export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  'accounts:create': { usage: '[--name NAME]', run: async (d, a) => toAccountView(await d.accounts.create(a.options.name ?? null)) },
  'accounts:get': { usage: '<account_id>', run: async (d, a) => toAccountDetailView(await d.accounts.get(arg(a, 0, 'account_id'))) },
  'accounts:limits': {
    usage: '<account_id> --limits JSON  (e.g. \'{"spend_cap_usd":{"day":5,"week":20},"rpm":600,"tpm":200000}\'; {} removes them)',
    run: async (d, a) => toAccountDetailView(await d.accounts.setLimits(arg(a, 0, 'account_id'), toSharedLimits(validate(sharedLimitsSchema, json(a.options.limits ?? '{}'))))),
  },
  topup: { usage: '<account_id> <amount_usd> --reference REF', run: (d, a) => credit(d, a, 'topup') },
  grant: { usage: '<account_id> <amount_usd> --reference REF', run: (d, a) => credit(d, a, 'grant') },
  ledger: {
    usage: '<account_id> [--limit N] [--cursor C]',
    run: async (d, a) => {
      const page = await d.ledgerReads.list(arg(a, 0, 'account_id'), Number(a.options.limit ?? 50), a.options.cursor);
      return { data: page.entries.map(toLedgerView), next_cursor: page.nextCursor };
    },
  },
  'ledger:verify': {
    usage: '[account_id]',
    run: async (d, a) => {
      const id = a.positionals[0];
      if (id) {
        await d.accounts.get(id);
        return d.ledgerReads.verify(id);
      }
      const all = await d.ledgerReads.verifyAll();
      return { ok: all.broken.length === 0, accounts: all.accounts, broken: all.broken };
    },
  },
  'keys:create': {
    usage: "<account_id> --name NAME [--role inference|management] [--limits JSON] [--expires-at ISO]",
    run: async (d, a) => {
      const input = validate(createKeySchema, { name: a.options.name, role: a.options.role, limits: json(a.options.limits), expires_at: a.options['expires-at'] });
      const account = await d.accounts.get(arg(a, 0, 'account_id'));
      const minted = await d.keys.mint(account._id, input);
      return { data: toKeyView(minted.doc), key: minted.raw };
    },
  },
  'keys:get': { usage: '<key_id>', run: async (d, a) => toKeyView(await d.keys.get(arg(a, 0, 'key_id'))) },
  'keys:list': { usage: '<account_id>', run: async (d, a) => (await d.keys.list(arg(a, 0, 'account_id'))).map(toKeyView) },
  'keys:update': {
    usage: '<key_id> --patch JSON',
    run: async (d, a) => toKeyView(await d.keys.patch(arg(a, 0, 'key_id'), validate(patchKeySchema, json(a.options.patch ?? '{}')))),
  },
  'keys:disable': { usage: '<key_id>', run: async (d, a) => toKeyView(await d.keys.patch(arg(a, 0, 'key_id'), { disabled: true })) },
  'keys:rotate': {
    usage: '<key_id>',
    run: async (d, a) => {
      const minted = await d.keys.rotate(arg(a, 0, 'key_id'));
      return { data: toKeyView(minted.doc), key: minted.raw };
    },
  },
  'models:put': {
    usage: "<vendor/model> --json '{...}'",
    run: async (d, a) => {
      const doc = await d.catalogRepository.upsert(arg(a, 0, 'model'), validate(modelInputSchema, json(a.options.json)));
      await d.bus.publish({ type: 'catalog' });
      return doc;
    },
  },
  'models:retire': {
    usage: '<vendor/model>',
    run: async (d, a) => {
      const retired = await d.catalogRepository.retire(arg(a, 0, 'model'));
      await d.bus.publish({ type: 'catalog' });
      return { id: a.positionals[0], retired };
    },
  },
};
