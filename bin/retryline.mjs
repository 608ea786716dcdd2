#!/usr/bin/env node
// `npx retryline worksheet <module>`, `verify <module>`, `workerd-modules` (js/cli/main.mjs).
import { main } from "../js/cli/main.mjs";

// `retryline workerd-modules | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`retryline: ${error?.message ?? error}\n`);
    process.exitCode = 2;
  },
);
