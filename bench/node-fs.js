// SPDX-License-Identifier: MIT
// bench/node-fs.js - Node.js's own io_uring use (libuv, UV_USE_IO_URING=1):
//   node bench/node-fs.js loop N   N chains of 8 awaited fs/promises calls
//                                  (open, write 4 KiB, sync, read, stat,
//                                  close, rename, unlink); prints ops/s
//   node bench/node-fs.js idle     100 small chains, then 5 s idle; prints
//                                  the process's CPU over the idle time
// Run it on the kernel, and under `build/bin/anyring-run --deny-io-uring --`
// for the user engine through the trap (docs/performance.md).
'use strict';
const fs = require('fs/promises');
const os = require('os');
const path = require('path');

async function loop(n) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'anyring-node-'));
  const buf = Buffer.alloc(4096, 7);
  const t0 = process.hrtime.bigint();
  let ops = 0;
  for (let i = 0; i < n; i++) {
    const f = path.join(dir, 'f' + i);
    const h = await fs.open(f, 'w+'); ops++;
    await h.write(buf, 0, 4096, 0); ops++;
    await h.sync(); ops++;
    const r = await h.read(Buffer.alloc(4096), 0, 4096, 0); ops++;
    if (r.bytesRead !== 4096 || !r.buffer.equals(buf))
      throw new Error('read back ' + r.bytesRead + ' bytes, not what was written');
    await h.stat(); ops++;
    await h.close(); ops++;
    await fs.rename(f, f + '.x'); ops++;
    await fs.unlink(f + '.x'); ops++;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await fs.rmdir(dir);
  console.log(`ok ops=${ops} secs=${s.toFixed(3)} ops/s=${(ops / s).toFixed(0)}`);
}

async function idle() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'anyring-node-'));
  for (let i = 0; i < 100; i++) {
    const f = path.join(dir, 'f' + i);
    await fs.writeFile(f, 'x');
    await fs.stat(f);
    await fs.unlink(f);
  }
  await fs.rmdir(dir);
  const c0 = process.cpuUsage();
  const t0 = Date.now();
  setTimeout(() => {
    const c = process.cpuUsage(c0);
    console.log(`idle ms=${Date.now() - t0} cpu_ms=${((c.user + c.system) / 1000).toFixed(1)}`);
  }, 5000);
}

const [mode, arg] = process.argv.slice(2);
const run = mode === 'idle' ? idle() : loop(+(arg || 500));
run.catch((e) => { console.error(e); process.exit(1); });
