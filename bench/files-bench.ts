/**
 * Upload and download throughput of a 3 MB file, and the service's RSS during a 100 MB upload,
 * with the service in its own process on loopback (embedded default, fresh DATA_DIR).
 * Run: npx tsx bench/files-bench.ts
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../src/infra/auth/session-verifier';

const MIB = 1024 * 1024;
const PORT = 3900 + Math.floor(Math.random() * 90);
const BASE = `http://127.0.0.1:${PORT}`;
const secret = randomBytes(32).toString('hex');
const directoryToken = randomBytes(32).toString('hex');

const rssOf = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
};

function uploadStream(
  token: string,
  name: string,
  size: number,
  query = '',
): Promise<{ status: number; body: string }> {
  const boundary = `----bench${randomBytes(6).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return new Promise((resolve, reject) => {
    const req = http.request(`${BASE}/api/File/Upload${query}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    let sent = 0;
    req.write(head);
    const pump = () => {
      while (sent < size) {
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-bench-files-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      AUTH_JWT_SECRET: secret,
      DIRECTORY_SYNC_TOKEN: directoryToken,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${BASE}/health/live`)).ok) break;
      } catch {
        if (i > 200) throw new Error('service did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const directory = JSON.parse(fs.readFileSync('demo/directory.json', 'utf8'));
    await fetch(`${BASE}/internal/directory/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-directory-token': directoryToken },
      body: JSON.stringify(directory),
    });
    const token = await mintSessionToken(secret, { userId: 1 });

    // Warm-up, then idle RSS.
    const warm = await uploadStream(token, 'warm.txt', 1024);
    if (warm.status !== 200) throw new Error(`upload failed: ${warm.status} ${warm.body}`);
    await fetch(`${BASE}/api/File/Download?path=${encodeURIComponent(JSON.parse(warm.body))}`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.arrayBuffer());
    await new Promise((r) => setTimeout(r, 500));
    const pid = child.pid ?? 0;
    const idle = rssOf(pid);

    const rounds = 20;
    const size = 3 * MIB;
    const paths: string[] = [];
    let started = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) {
      const res = await uploadStream(token, `three-${i}.txt`, size);
      if (res.status !== 200) throw new Error(`upload failed: ${res.status}`);
      paths.push(JSON.parse(res.body));
    }
    const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    started = process.hrtime.bigint();
    for (const p of paths) {
      const res = await fetch(`${BASE}/api/File/Download?path=${encodeURIComponent(p)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const bytes = (await res.arrayBuffer()).byteLength;
      if (bytes !== size) throw new Error(`download returned ${bytes} bytes`);
    }
    const downloadSeconds = Number(process.hrtime.bigint() - started) / 1e9;

    let peak = rssOf(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    const bigStarted = process.hrtime.bigint();
    const big = await uploadStream(token, 'hundred.txt', 100 * MIB, '?isBigFile=true');
    const bigSeconds = Number(process.hrtime.bigint() - bigStarted) / 1e9;
    clearInterval(sampler);
    if (big.status !== 200) throw new Error(`100 MB upload failed: ${big.status} ${big.body}`);

    const mb = (n: number) => (n / MIB).toFixed(1);
    console.log(
      JSON.stringify(
        {
          upload3MiB: {
            rounds,
            MiBps: ((rounds * size) / MIB / uploadSeconds).toFixed(0),
            msEach: ((uploadSeconds * 1000) / rounds).toFixed(1),
          },
          download3MiB: {
            rounds,
            MiBps: ((rounds * size) / MIB / downloadSeconds).toFixed(0),
            msEach: ((downloadSeconds * 1000) / rounds).toFixed(1),
          },
          upload100MiB: {
            seconds: bigSeconds.toFixed(2),
            MiBps: (100 / bigSeconds).toFixed(0),
            idleRssMiB: mb(idle),
            peakRssMiB: mb(peak),
            rssGrowthMiB: mb(peak - idle),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
