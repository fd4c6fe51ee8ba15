import { spawn } from 'node:child_process';
import { checkoutProcesses } from '../test/e2e/lifecycle/checkout-processes.js';
import { makeScratchCheckout } from '../test/e2e/lifecycle/scratch-checkout.js';
const co = makeScratchCheckout();
const child = spawn('npm', ['start'], { cwd: co.dir, env: { ...process.env, PORT: '38124', FAREBOX_SERVICES: 'local' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
const t0 = Date.now();
const stamp = (s: string) => console.log(((Date.now() - t0) / 1000).toFixed(2), s.trimEnd().slice(0, 160));
child.stdout.on('data', (b) => String(b).split('\n').filter(Boolean).forEach(stamp));
child.stderr.on('data', (b) => String(b).split('\n').filter(Boolean).forEach(stamp));
for (;;) { try { if ((await fetch('http://127.0.0.1:38124/readyz')).status === 200) break; } catch {} await new Promise((r) => setTimeout(r, 200)); }
stamp('UP');
await new Promise((r) => setTimeout(r, 2000));
stamp('SIGTERM');
process.kill(-child.pid!, 'SIGTERM');
let last = '';
for (;;) { const ps = checkoutProcesses(co.dir); const s = ps.map((p) => p.command.slice(0, 60)).join(' | '); if (s !== last) { stamp('procs: ' + s); last = s; } if (ps.length === 0) break; await new Promise((r) => setTimeout(r, 100)); }
stamp('ALL GONE');
co.remove();
