// One child process with a time limit, killed with the bench if the bench exits first.
import { spawn } from "node:child_process";

/** Runs `node ...args`; resolves `{ code, signal, out, err }` when it exits (SIGKILL after `timeoutMs`). */
export function runNode(args, { cwd, env, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
    const onExit = () => proc.kill("SIGKILL");
    process.once("exit", onExit);
    proc.once("error", (error) => (clearTimeout(timer), process.removeListener("exit", onExit), reject(error)));
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      process.removeListener("exit", onExit);
      resolve({ code, signal, out, err });
    });
  });
}
