// The whole-process twin of baseline L (for the CLI, library and MCP start-up rows): a Node process that spawns
// the minimal REPL, runs `1+1`, prints it, exits.
import { BaselineRepl } from "./lib/baseline-client.mjs";

const repl = new BaselineRepl(process.argv[2] ?? "/usr/bin/python3");
await repl.start();
const { outputs } = await repl.execute("1+1");
process.stdout.write(`${outputs[0]?.bundle?.["text/plain"]}\n`);
await repl.stop();
