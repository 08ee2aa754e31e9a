/**
 * GridFS writes an upload's chunks as they come and its files document only once it is whole: a
 * process that dies mid-upload leaves chunks that no files document names. The store records
 * each upload before its first chunk, so the purge of stale staging finds and sweeps them. On the
 * mingo stand-in, with the collections as a crash leaves them (the contract suite runs real
 * uploads against GridFS where MongoDB answers).
 */
import type { Db } from 'mongodb';
import { ObjectId } from 'mongodb';
import { GridFsFileStore } from '../../src/infra/mongo/gridfs-file-store';
import { mingoReadDb } from '../support/mingo-mongo';

const HOUR = 3_600_000;
const at = (ms: number) => ObjectId.createFromTime(Math.floor(ms / 1000));

describe('GridFS uploads that died midway', () => {
  it('given chunks of an upload begun two hours ago that never finished, when staging older than an hour is purged, then they go, and an upload in progress and a stored file stay', async () => {
    const db = mingoReadDb().db;
    const now = Date.now();
    const [crashed, inProgress, stored] = [at(now - 2 * HOUR), at(now - 60_000), at(now - 3 * HOUR)];
    const chunks = db.collection('uploads.chunks');
    for (const id of [crashed, inProgress, stored])
      for (let n = 0; n < 3; n++)
        await chunks.updateOne(
          { _id: `${id.toHexString()}-${n}` } as object,
          { $set: { files_id: id, n } },
          { upsert: true },
        );
    for (const id of [crashed, inProgress]) await db.collection('uploads.staging').insertOne({ _id: id });
    await db
      .collection('uploads.files')
      .insertOne({ _id: stored, filename: 'f/abc/a.pdf', metadata: { staged: false } });
    const store = new GridFsFileStore(db as unknown as Db);

    const purged = await store.purgeStaging(new Date(now - HOUR));

    expect(purged).toBe(1);
    const left = await chunks.find({}).toArray();
    expect(new Set(left.map((c) => String(c.files_id)))).toEqual(
      new Set([inProgress.toHexString(), stored.toHexString()]),
    );
    expect((await db.collection('uploads.staging').find({}).toArray()).map((d) => String(d._id))).toEqual([
      inProgress.toHexString(),
    ]);
    expect(await store.purgeStaging(new Date(now - HOUR))).toBe(0);
  });
});
