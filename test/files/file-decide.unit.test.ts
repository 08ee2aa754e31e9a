import { DomainError } from '../../src/domain/errors';
import type { FileEventData } from '../../src/files/file-decide';
import { fileDecider } from '../../src/files/file-decide';
import { fileStreamId } from '../../src/files/file-events';
import { DeciderSpecification } from '../support/decider-specification';

const PATH = 'resource_files/abc/manual.pdf';
const uploadData = {
  path: PATH,
  name: 'manual.pdf',
  size: 12,
  contentType: 'application/pdf',
  uploadedBy: 4,
  at: '2025-03-01T12:00:00.000Z',
};
const uploaded: FileEventData = { type: 'FileUploaded', data: uploadData };
const deleted: FileEventData = { type: 'FileDeleted', data: { path: PATH, reason: 'unreferenced' } };

const given = DeciderSpecification.for(fileDecider);

describe('file decider', () => {
  it('given nothing, when an upload is recorded, then FileUploaded', () => {
    given().when({ type: 'RecordUpload', data: uploadData }).then([uploaded]);
  });

  it('given a recorded upload, when the same path is recorded again, then it conflicts', () => {
    given([uploaded])
      .when({ type: 'RecordUpload', data: uploadData })
      .thenThrows(DomainError, (error) => error.kind === 'conflict');
  });

  it('given an upload since deleted, when the same path is recorded again, then it still conflicts', () => {
    given([uploaded, deleted])
      .when({ type: 'RecordUpload', data: uploadData })
      .thenThrows(DomainError, (error) => error.kind === 'conflict');
  });

  it('given an upload, when it is deleted, then FileDeleted with its reason', () => {
    given([uploaded])
      .when({ type: 'DeleteFile', data: { path: PATH, reason: 'unreferenced' } })
      .then([deleted]);
  });

  it.each([
    ['nothing recorded', []],
    ['an upload already deleted', [uploaded, deleted]],
  ])('given %s, when it is deleted, then nothing happens', (_case, history: FileEventData[]) => {
    given(history)
      .when({ type: 'DeleteFile', data: { path: PATH, reason: 'orphaned' } })
      .thenNothingHappened();
  });
});

describe('file streams', () => {
  it('given a file id, then its events live on the stream file-<id>', () => {
    expect(fileStreamId('k3j9x')).toBe('file-k3j9x');
  });
});
