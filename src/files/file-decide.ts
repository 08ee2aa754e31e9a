import type { Decider } from '../domain/decider';
import { conflict } from '../domain/errors';
import type { Command } from '../domain/event';
import type { FileDeleted, FileEvent, FileUploaded } from './file-events';

/**
 * The file aggregate (stream `file-<id>`): an upload is recorded once, and deleted at most once.
 * The bytes are the command layer's business; this only decides what the stream records.
 */
export type FileState = { readonly uploaded: boolean; readonly deleted: boolean };

export type RecordUpload = Command<'RecordUpload', FileUploaded['data']>;
export type DeleteFile = Command<'DeleteFile', FileDeleted['data']>;
export type FileCommand = RecordUpload | DeleteFile;

/** An event as decided, before the command layer stamps its metadata. */
export type FileEventData = FileEvent extends infer E ? (E extends FileEvent ? Omit<E, 'metadata'> : never) : never;

export function decide(command: FileCommand, state: FileState): FileEventData[] {
  switch (command.type) {
    case 'RecordUpload':
      // The id is random: a second upload under the same path is a collision, never a retry.
      if (state.uploaded) throw conflict(`${command.data.path} is already recorded`);
      return [{ type: 'FileUploaded', data: command.data }];
    case 'DeleteFile':
      // Deleting twice (a sweep racing a release) records it once.
      return state.uploaded && !state.deleted ? [{ type: 'FileDeleted', data: command.data }] : [];
    default: {
      const _exhaustive: never = command;
      throw new Error(`unknown command ${JSON.stringify(_exhaustive)}`);
    }
  }
}

export function evolve(state: FileState, event: FileEventData): FileState {
  switch (event.type) {
    case 'FileUploaded':
      return { ...state, uploaded: true };
    case 'FileDeleted':
      return { ...state, deleted: true };
    default:
      // A stream holds only file events; anything else changes nothing.
      return state;
  }
}

export const fileDecider: Decider<FileState, FileCommand, FileEventData> = {
  decide,
  evolve,
  initialState: () => ({ uploaded: false, deleted: false }),
};
