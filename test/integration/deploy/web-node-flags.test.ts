import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEB_NODE_FLAGS } from '../../../scripts/start/web-node-flags.js';

const ROOT = new URL('../../../', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, ROOT), 'utf8');

/** The words of a command that starts the web, from `node` to its entry. */
const nodeCommand = (words: readonly string[]): string[] => words.slice(words.indexOf('node'), words.indexOf('dist/src/http/server.js') + 1);
const jsonWords = (line: string | undefined): string[] => JSON.parse(line?.slice(line.indexOf('[')) ?? '[]') as string[];

describe('every way of starting a production web', () => {
  const expected = ['node', ...WEB_NODE_FLAGS, 'dist/src/http/server.js'];

  it('passes the web its V8 flags: npm run start:web, the image and the compose file', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(nodeCommand(scripts['start:web']?.split(/\s+/) ?? [])).toEqual(expected);
    expect(nodeCommand(jsonWords(read('Dockerfile').split('\n').find((l) => l.startsWith('CMD '))))).toEqual(expected);
    const compose = read('docker-compose.yml').split('\n');
    const web = compose.findIndex((l) => /^ {2}web:/.test(l));
    expect(nodeCommand(jsonWords(compose.slice(web).find((l) => l.trim().startsWith('command:'))))).toEqual(expected);
  });

  it('starts through start:web on Heroku', () => {
    expect(read('Procfile')).toMatch(/^web: npm run start:web$/m);
  });
});
