// A panic in the package's wasm ends as a trap (`panic = "abort"`), after std's panic handler has
// formatted its message for a hook that, on wasm32-unknown-unknown, writes it nowhere. The handler
// and the formatting it brings (core::fmt, the payloads, the panic count) are code no page runs to
// any effect; stable Rust cannot replace it (`#[panic_handler]` is std's own), so the build does:
// the bodies of core's `panic_fmt` and std's `rust_begin_unwind` become `unreachable`, the trap they
// ended in anyway, and wasm-opt then drops what only they reached (0.3 KiB gzip of each module).
// It reads the name section, which cargo's release build keeps (wasm-opt strips it afterwards).

/** The functions trapped, by their mangled names (v0 `_RNv…` or legacy `_ZN…`). */
const TRAPPED = [/4core9panicking9panic_fmt(17h[0-9a-f]{16}E)?$/, /rust_begin_unwind$/];

/** `bytes` (a wasm module) with the panic handler's bodies replaced by `unreachable`. Throws if it
 * finds neither (a toolchain that renamed them: the build should say so, not grow unseen). */
export function trapPanics(bytes) {
  const b = Buffer.from(bytes);
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = b[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return [value, at];
  };
  const uleb = (n) => {
    const out = [];
    do {
      let byte = n & 0x7f;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      out.push(byte);
    } while (n > 0);
    return Buffer.from(out);
  };
  const sections = [];
  for (let at = 8; at < b.length; ) {
    const [size, body] = leb(at + 1);
    sections.push({ id: b[at], start: at, body, end: body + size });
    at = body + size;
  }
  // Function indices count the imported functions first (the package's modules import none).
  let imported = 0;
  const imports = sections.find((s) => s.id === 2);
  if (imports !== undefined) {
    let [count, at] = leb(imports.body);
    for (let i = 0; i < count; i++) {
      for (let name = 0; name < 2; name++) {
        const [length, next] = leb(at);
        at = next + length;
      }
      const kind = b[at++];
      if (kind === 0) {
        imported++;
        [, at] = leb(at);
      } else if (kind === 1 || kind === 2) {
        if (kind === 1) at++;
        const flags = b[at++];
        [, at] = leb(at);
        if (flags & 1) [, at] = leb(at);
      } else at += 2;
    }
  }
  const trapped = new Set();
  for (const custom of sections.filter((s) => s.id === 0)) {
    const [length, at] = leb(custom.body);
    if (b.toString("latin1", at, at + length) !== "name") continue;
    for (let sub = at + length; sub < custom.end; ) {
      const [size, start] = leb(sub + 1);
      if (b[sub] === 1) {
        let [count, item] = leb(start);
        for (let i = 0; i < count; i++) {
          const [index, nameAt] = leb(item);
          const [nameLength, text] = leb(nameAt);
          const name = b.toString("latin1", text, text + nameLength);
          if (TRAPPED.some((re) => re.test(name))) trapped.add(index - imported);
          item = text + nameLength;
        }
      }
      sub = start + size;
    }
  }
  if (trapped.size < TRAPPED.length) throw new Error(`scripts/panic-trap.mjs: found ${trapped.size} of the ${TRAPPED.length} panic functions by name`);
  const code = sections.find((s) => s.id === 10);
  let [count, at] = leb(code.body);
  const parts = [uleb(count)];
  for (let i = 0; i < count; i++) {
    const [size, body] = leb(at);
    // No locals, `unreachable`, `end`.
    parts.push(...(trapped.has(i) ? [uleb(3), Buffer.from([0x00, 0x00, 0x0b])] : [uleb(size), b.subarray(body, body + size)]));
    at = body + size;
  }
  const content = Buffer.concat(parts);
  return Buffer.concat([b.subarray(0, code.start), Buffer.from([10]), uleb(content.length), content, b.subarray(code.end)]);
}
