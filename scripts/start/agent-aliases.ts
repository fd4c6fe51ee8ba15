import type { Collection } from 'mongodb';
import type { ModelDoc } from '../../src/catalog/index.js';

/**
 * The model ids the coding agents pinned in scripts/agents/ ask for when left at their
 * defaults (Claude Code's main and background models, Codex CLI's model). A fresh `npm start`
 * has no vendor keys, so its demo answers them with `local/echo`: the agents work out of the
 * box. An operator with vendor keys maps them to real entries instead (docs/agents.md).
 */
export const AGENT_DEFAULT_MODELS = ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'gpt-6.2-sol'] as const;

/** Makes the agents' default model ids aliases of `local/echo` (kept by later catalog syncs, which never touch aliases the seed does not set). */
export async function aliasAgentModels(models: Collection<ModelDoc>): Promise<void> {
  await models.updateOne({ _id: 'local/echo' }, { $addToSet: { aliases: { $each: [...AGENT_DEFAULT_MODELS] } }, $set: { updated_at: new Date() } });
}
