/** A file of DATA_DIR made private (src/config/private-files.ts): created 0600 where missing, made 0600 where not. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makePrivateFile } from '../../src/config/private-files';

describe('a private file', () => {
  it('given no file, then it is made empty and 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-private-'));
    const file = path.join(dir, 'new.sqlite');

    makePrivateFile(file);

    expect(fs.statSync(file).size).toBe(0);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('given a file readable by others, then it keeps its bytes and becomes 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-private-'));
    const file = path.join(dir, 'old.sqlite');
    fs.writeFileSync(file, 'kept', { mode: 0o644 });

    makePrivateFile(file);

    expect(fs.readFileSync(file, 'utf8')).toBe('kept');
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
