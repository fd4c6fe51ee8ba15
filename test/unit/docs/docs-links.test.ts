import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The page's text outside code fences. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function anchors(page: string): Set<string> {
  const text = prose(readFileSync(join(ROOT, page), 'utf8'));
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] ?? '')));
}

describe('README and docs/', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = prose(readFileSync(join(ROOT, page), 'utf8'));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const linked = file ? join(dirname(page), file) : page;
        if (!existsSync(join(ROOT, linked))) broken.push(`${page}: ${target}`);
        else if (anchor && linked.endsWith('.md') && !anchors(linked).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const missing: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, path] of text.matchAll(/`((?:src|test|scripts|workers|docs)\/[A-Za-z0-9_./-]*)`/g)) {
        if (path !== undefined && !existsSync(join(ROOT, path))) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('name only npm scripts that package.json has, and keep the two quick-start commands', () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const named = PAGES.flatMap((page) => [...readFileSync(join(ROOT, page), 'utf8').matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1] ?? ''));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toMatch(/^npm test\s/m);
    expect(readme.split('\n').length).toBeLessThan(300);
  });
});
