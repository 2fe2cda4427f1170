/** `npm run ivs -- provision | publish-token STREAM_ID` (see ivs/ivs-cli.ts). */
import { readEnv } from '../config';
import { runIvsCli } from '../ivs/ivs-cli';
import { findRepoRoot } from '../paths';

process.exitCode = await runIvsCli(process.argv.slice(2), {
  env: readEnv(findRepoRoot()),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
