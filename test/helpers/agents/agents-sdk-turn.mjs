// One agent turn with the OpenAI Agents SDK, run on the pinned Node from the agent folder:
//   node agents-sdk-turn.mjs "prompt"
// Environment: AGENTS_DIR (where @openai/agents is installed), AGENT_BASE_URL (ends in /v1),
// FAREBOX_API_KEY, AGENT_API (responses | chat_completions), AGENT_STREAM (1 | 0), AGENT_MODEL.
// Prints the final output; exits 1 on any error.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.AGENTS_DIR ?? '.', 'package.json'));
const { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } = require('@openai/agents');
const { z } = require('zod');
const OpenAI = require('openai');
const Client = OpenAI.default ?? OpenAI;

setTracingDisabled(true);
setDefaultOpenAIClient(new Client({ baseURL: process.env.AGENT_BASE_URL, apiKey: process.env.FAREBOX_API_KEY, maxRetries: 0 }));
setOpenAIAPI(process.env.AGENT_API === 'chat_completions' ? 'chat_completions' : 'responses');

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `It is sunny in ${city}.`,
});

const agent = new Agent({
  name: 'Assistant',
  instructions: 'You are a helpful assistant. Be brief.',
  model: process.env.AGENT_MODEL,
  tools: [getWeather],
});

try {
  const prompt = process.argv[2] ?? 'say hello';
  if (process.env.AGENT_STREAM === '1') {
    const result = await run(agent, prompt, { stream: true, maxTurns: 4 });
    for await (const _event of result.toTextStream()) { /* drained */ }
    await result.completed;
    console.log(result.finalOutput);
  } else {
    const result = await run(agent, prompt, { maxTurns: 4 });
    console.log(result.finalOutput);
  }
} catch (err) {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
}
