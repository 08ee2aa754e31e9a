import { requestFingerprint } from '../api/idempotency';

/** What one upload was, as far as its Idempotency-Key is concerned. */
export type UploadIdentity = {
  /** The path with its query (`isBigFile` changes the request). */
  readonly url: string;
  readonly folder: string;
  /** The file part's declared name and content type, its size and the SHA-256 of its bytes (base64url). */
  readonly file: {
    readonly name: string;
    readonly contentType: string;
    readonly size: number;
    readonly sha256: string;
  };
};

/**
 * The fingerprint of an upload (src/api/idempotency.ts): a multipart body is not JSON, and its
 * boundary differs at each send, so two uploads are one request when they go to the same URL with
 * the same folder, the same declared part headers and the same bytes. Hashed as the bytes stream in.
 */
export const uploadFingerprint = ({ url, folder, file }: UploadIdentity): string =>
  requestFingerprint('POST', url, { folder, file });
