import { afterAll, expect } from 'vitest';
import { answeredDocuments, answeredRecorder, specProblems } from '../helpers/spec-recorder.js';

/**
 * Test files whose answers must conform to OpenAI's spec: the chat, images, embeddings, models
 * and error tests. Fault and limits tests are left out: what they provoke is covered by the error table.
 */
const CHECKED = /test\/(e2e|integration\/(chat|queue|foundation|embeddings))\//;

/**
 * Test files whose answers must also conform to Farebox's own OpenAPI document
 * (src/http/openapi): the operator API, keys, records, usage, receipts, quote, ledger, console
 * session and limit tests.
 */
const FAREBOX_CHECKED = /test\/integration\/(foundation|ledger|quote|console|openapi|admission\/(window-limits|end-user-limits|spend-caps|rate-limits))[/.]/;

// After each test file: every JSON body and stream chunk the shared helpers received from a
// gateway is validated (see test/helpers/spec-recorder.ts for the route → schema table, and
// test/helpers/farebox-spec.ts for Farebox's own routes).
// Vitest wants the first hook argument destructured (fixtures); the file is the second.
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  await answeredRecorder.settle();
  const file = ('filepath' in suite ? String(suite.filepath) : '').replaceAll('\\', '/');
  const documents = answeredDocuments.splice(0);
  if (CHECKED.test(file)) expect(specProblems(documents)).toEqual([]);
  if (FAREBOX_CHECKED.test(file)) {
    // Loaded only here: the document imports the app's modules, and a setup file that loaded
    // them up front would evaluate them before a test file's vi.mock could replace one.
    const { fareboxSpecProblems } = await import('../helpers/farebox-spec.js');
    expect(fareboxSpecProblems(documents)).toEqual([]);
  }
});
