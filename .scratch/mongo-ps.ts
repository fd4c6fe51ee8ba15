import { mkdtemp } from 'node:fs/promises';
import { execSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMongod } from '../scripts/services/start-mongod.js';
const dir = await mkdtemp(path.join(tmpdir(), 'ms-'));
const m = await startMongod({ binary: path.resolve('.farebox/bin/mongod.exe'), winePrefix: path.resolve('.farebox/wine'), dataDir: dir, port: 47017, env: process.env });
console.log(execSync("for p in $(pgrep -f 'exe|wine'); do echo \"$p $(tr '\\0' ' ' < /proc/$p/cmdline | cut -c1-80) :: $(tr '\\0' '\\n' < /proc/$p/environ | grep ^WINEPREFIX)\"; done").toString());
await m.stop();
