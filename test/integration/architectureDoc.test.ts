// docs/ARCHITECTURE.md keeps a line per module of main/ (STYLE: "an ARCHITECTURE.md with a line per
// module"). A page like that goes stale quietly as files are added, moved and split, so the rule its
// introduction states is checked here:
//   - every non-test .ts/.mjs file under main/ is named in the first cell of a table row, by its path
//     relative to main/ (`core/frame.ts`), or by its bare name (`frame.ts`) in a row under the heading
//     of the file's own folder (a heading naming `core/`) or in a row whose first cell also names that
//     folder (`core/runtime/`);
//   - every path under main/ the page names (in backticks, anywhere outside code blocks) exists, and
//     every bare name in a row's first cell exists in the folder that row refers to.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN_DIR = join(REPO_ROOT, 'main');
const DOC_PATH = join(REPO_ROOT, 'docs', 'ARCHITECTURE.md');
const MODULE_NAME = /^[\w.-]+\.(ts|mjs)$/;

/** Every source module under main/, as a path relative to main/ with forward slashes. */
function sourceModules(): string[] {
  const modules: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(join(MAIN_DIR, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && MODULE_NAME.test(entry.name) && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) modules.push(path);
    }
  };
  walk('');
  return modules.sort();
}

const TOP_FOLDERS = new Set(
  readdirSync(MAIN_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name),
);

/** A backticked token that names something under main/: `main/…`, or a path whose first folder is one of main/'s. */
function mainPath(token: string): string | undefined {
  if (!/^[\w./-]+$/.test(token) || !token.includes('/')) return undefined;
  if (token.startsWith('main/')) return token.slice('main/'.length);
  return TOP_FOLDERS.has(token.split('/')[0]!) ? token : undefined;
}

function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
}

interface DocNames {
  /** Modules the page lists, as paths relative to main/. */
  listed: Set<string>;
  /** Paths under main/ that the page names and the tree lacks, with the line that names them. */
  missing: string[];
}

function readDoc(text: string): DocNames {
  const listed = new Set<string>();
  const missing: string[] = [];
  const exists = (path: string): boolean => existsSync(join(MAIN_DIR, path));
  let sectionFolder: string | undefined;
  let inCode = false;
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.startsWith('```')) inCode = !inCode;
    if (inCode) return;
    for (const token of backticked(line)) {
      const path = mainPath(token);
      if (path !== undefined && !exists(path)) missing.push(`\`${token}\` (${where})`);
    }
    if (/^#{1,6} /.test(line)) {
      sectionFolder = backticked(line)
        .map(mainPath)
        .find((path) => path?.endsWith('/'));
      return;
    }
    if (!line.startsWith('|') || /^\|[\s|:-]*$/.test(line)) return;
    const tokens = backticked(line.split('|')[1] ?? '');
    const rowFolders = [sectionFolder, ...tokens.map(mainPath).filter((path) => path?.endsWith('/'))].filter((path) => path !== undefined);
    for (const token of tokens) {
      const path = mainPath(token);
      if (path !== undefined) {
        listed.add(path);
      } else if (MODULE_NAME.test(token) && rowFolders.length > 0) {
        const candidates = rowFolders.map((folder) => folder + token);
        const found = candidates.filter(exists);
        if (found.length === 0) missing.push(`\`${token}\` in ${rowFolders.map((folder) => `\`${folder}\``).join(' or ')} (${where})`);
        for (const candidate of found) listed.add(candidate);
      }
    }
  });
  return { listed, missing };
}

describe('docs/ARCHITECTURE.md', () => {
  const doc = readDoc(readFileSync(DOC_PATH, 'utf8'));

  it('has a row for every module under main/', () => {
    const unlisted = sourceModules().filter((module) => !doc.listed.has(module));
    expect(
      unlisted,
      `these modules have no row in docs/ARCHITECTURE.md; add a row naming each one (\`folder/file.ts\`, or its bare name under its folder's heading), saying in one line what it is:\n  ${unlisted.join('\n  ')}\n`,
    ).toEqual([]);
  });

  it('names no path under main/ that does not exist', () => {
    expect(doc.missing, `docs/ARCHITECTURE.md names these, which main/ no longer has (moved, renamed or deleted?):\n  ${doc.missing.join('\n  ')}\n`).toEqual(
      [],
    );
  });
});
