/**
 * Flag checking for the measurement scripts under scripts/: `--help` prints the usage line and exits 0; a flag the
 * script does not take (or a valued flag without its value) is named on stderr with the usage, exit code 2 — so a
 * misspelt flag never runs a long measurement with the defaults.
 */
export function checkScriptArgs(usage: string, valued: readonly string[], switches: readonly string[] = []): void {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: ${usage}\n`);
    process.exit(0);
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (valued.includes(a) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) i++;
    else if (!switches.includes(a)) {
      process.stderr.write(`${valued.includes(a) ? `${a} needs a value` : `unknown argument ${a}`}\nusage: ${usage}\n`);
      process.exit(2);
    }
  }
}
