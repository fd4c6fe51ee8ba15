import { afterAll, expect } from 'vitest';
import { answeredDocuments, answeredRecorder, specProblems } from '../helpers/spec-recorder.js';

/**
 * Test files whose answers must conform to OpenAI's spec: the chat, images, embeddings, models
 * and error tests. Fault and limits tests are left out: what they provoke is covered by the error table.
 */
const CHECKED = /test\/(e2e|integration\/(chat|queue|foundation|embeddings))\//;

// After each test file: every JSON body and stream chunk the shared helpers received from a
// gateway is validated (see test/helpers/spec-recorder.ts for the route → schema table).
// Vitest wants the first hook argument destructured (fixtures); the file is the second.
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  await answeredRecorder.settle();
  const file = 'filepath' in suite ? String(suite.filepath) : '';
  const documents = answeredDocuments.splice(0);
  if (!CHECKED.test(file.replaceAll('\\', '/'))) return;
  expect(specProblems(documents)).toEqual([]);
});
