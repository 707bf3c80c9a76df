/**
 * README.md names every command: each npm script that runs a file of cli/ (`"serve": "tsx cli/serve.ts"`; a
 * `name:variant` script such as `bench:serve` aside) is in the Project layout's `cli/` line and in the tour of the
 * command line (as `npm run <name>` or `` `<name>` ``).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
const readme = fs.readFileSync('README.md', 'utf8');

/** The commands: scripts `tsx cli/<file>.ts` whose name has no `:`. */
const commands = Object.entries(pkg.scripts)
  .filter(([name, cmd]) => !name.includes(':') && /^tsx cli\/[\w-]+\.ts$/.test(cmd))
  .map(([name]) => name);

describe('README names every command', () => {
  it('the commands are these ten', () => {
    expect(commands).toEqual([
      'train',
      'eval',
      'play',
      'bench',
      'pretrain',
      'coverage',
      'compare',
      'experiment',
      'serve',
      'export-tasks',
    ]);
  });

  it("in the layout's cli/ line and in the tour", () => {
    const layout = readme.split('\n').find((l) => l.startsWith('cli/'));
    expect(layout).toBeDefined();
    const listed = layout!.replace(/^cli\/\s+/, '').split(/,\s*/);
    const tour = readme.slice(readme.indexOf('## The command line'), readme.indexOf('## Learning from scratch'));
    for (const c of commands) {
      expect(listed, c).toContain(c);
      expect(tour.includes(`npm run ${c} `) || tour.includes(`\`${c}\``), c).toBe(true);
    }
  });
});
