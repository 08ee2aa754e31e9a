import { Readable } from 'node:stream';
import {
  ReadDeadlineExceededError,
  cancelRead,
  consumeRead,
  readAtMost,
  withDeadline,
} from '../../../src/infra/eventstoredb/streaming-read';
import { EndlessRead, FakeRead } from './fake-read';

class ProjectionBug extends Error {}

describe('reads left early are cancelled', () => {
  it('given an endless read, when at most 3 items are taken, then it gets them and the call is cancelled', async () => {
    // given
    const read = new EndlessRead();
    // when
    const items = await readAtMost(read, 3, (n) => n);
    // then
    expect(items).toEqual([0, 1, 2]);
    expect(read.cancel).toHaveBeenCalledTimes(1);
    expect(read.destroyed).toBe(true);
  });

  it('given items the mapping drops, when at most 2 are taken, then only kept items count', async () => {
    // given
    const read = new FakeRead([1, 2, 3, 4, 5, 6], 'stall');
    // when
    const items = await readAtMost(read, 2, (n) => (n % 2 === 0 ? n * 10 : undefined));
    // then
    expect(items).toEqual([20, 40]);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('given a read shorter than asked for, when it ends, then all its items come back and nothing is cancelled', async () => {
    // given
    const read = new FakeRead(['a', 'b']);
    // when
    const items = await readAtMost(read, 5, (s) => s);
    // then
    expect(items).toEqual(['a', 'b']);
    expect(read.cancel).not.toHaveBeenCalled();
  });

  it('given a visitor that throws mid-iteration, when the read is consumed, then the error surfaces and the call is cancelled', async () => {
    // given
    const read = new FakeRead([1, 2, 3], 'stall');
    const visit = (n: number) => {
      if (n === 2) throw new ProjectionBug('no position');
      return true;
    };
    // when
    const consumed = consumeRead(read, visit);
    // then
    await expect(consumed).rejects.toBeInstanceOf(ProjectionBug);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('given a read that fails, when it is consumed, then its error surfaces', async () => {
    // given
    const failure = new ProjectionBug('server said no');
    const read = new FakeRead([1], { failWith: failure });
    // when
    const consumed = consumeRead(read, () => true);
    // then
    await expect(consumed).rejects.toBe(failure);
  });

  it('given zero items asked for, then none are read and the call is cancelled', async () => {
    // given
    const read = new EndlessRead();
    // when
    const items = await readAtMost(read, 0, (n) => n);
    // then
    expect(items).toEqual([]);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('given a readable without cancel, when left early, then it is destroyed', async () => {
    // given
    const read = Readable.from([1, 2, 3, 4]);
    // when
    const items = await readAtMost(read, 1, (n: number) => n);
    // then
    expect(items).toEqual([1]);
    expect(read.destroyed).toBe(true);
  });

  it('given a call that failed to start, when it is cancelled, then cancelling does not throw', async () => {
    // given
    const read = new FakeRead([1], 'stall');
    read.cancel.mockRejectedValueOnce(new Error('no channel'));
    // when
    const cancelled = cancelRead(read);
    // then
    await expect(cancelled).resolves.toBeUndefined();
    expect(read.destroyed).toBe(true);
  });
});

describe('reads with a deadline of their own', () => {
  it('given a read that stalls, when the deadline passes, then it fails with ReadDeadlineExceededError and the call is cancelled', async () => {
    // given
    const read = new FakeRead<number>([], 'stall');
    // when
    const answered = withDeadline(read, 30, (r) => readAtMost(r, 1, (n) => n));
    // then
    await expect(answered).rejects.toBeInstanceOf(ReadDeadlineExceededError);
    expect(read.cancel).toHaveBeenCalled();
    expect(read.destroyed).toBe(true);
  });

  it('given a read that answers in time, then its answer comes back', async () => {
    // given
    const read = new FakeRead([7]);
    // when
    const answered = withDeadline(read, 1000, (r) => readAtMost(r, 1, (n) => n));
    // then
    await expect(answered).resolves.toEqual([7]);
  });
});
