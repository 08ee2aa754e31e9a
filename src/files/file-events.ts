import type { Event } from '../domain/event';

/**
 * The lifecycle of one uploaded file, on its own stream `file-<random id>` (the id in its path):
 * an auditor sees who uploaded what and when it went away, and a rebuild of the read models
 * knows a deleted file stays deleted.
 */
export const fileStreamId = (fileId: string): string => `file-${fileId}`;

export type FileUploaded = Event<
  'FileUploaded',
  {
    readonly path: string;
    readonly name: string;
    readonly size: number;
    /** The type it is served with, from the extension (not the client's declaration). */
    readonly contentType: string;
    readonly uploadedBy: number;
    readonly at: string;
  }
>;

/**
 * `unreferenced`: the last resource referencing it went away; `orphaned`: never (or no longer) referenced
 * past UPLOAD_ORPHAN_HOURS.
 */
export type FileDeleted = Event<'FileDeleted', { readonly path: string; readonly reason: 'unreferenced' | 'orphaned' }>;

export type FileEvent = FileUploaded | FileDeleted;

export const FILE_EVENT_TYPES = ['FileUploaded', 'FileDeleted'] as const satisfies readonly FileEvent['type'][];
