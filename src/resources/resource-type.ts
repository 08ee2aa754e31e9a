import type { DetectedType } from './resource';

/*
 * `resourceType` and the preview `image`, detected from the stored path or the link — never set
 * by the client (docs/api.md). 0 other, 1 image, 2 video, 3 PDF.
 */

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'jfif', 'gif', 'bmp', 'webp', 'tif', 'tiff', 'ico']);
const VIDEO = new Set(['mp4', 'mkv', 'webm', 'mpeg', 'mpg', 'wmv', 'ogv', 'asf']);

export function detectResourceType(resourceUrl: string): DetectedType {
  const link = parseLink(resourceUrl);
  if (link) {
    const youtubeId = youtubeVideoId(link);
    if (youtubeId !== null) {
      return { resourceType: 2, image: `https://img.youtube.com/vi/${youtubeId}/hqdefault.jpg` };
    }
    if (isVimeoVideo(link)) return { resourceType: 2, image: '' };
  }
  const extension = extensionOf(resourceUrl);
  if (IMAGE.has(extension)) return { resourceType: 1, image: resourceUrl };
  if (VIDEO.has(extension)) return { resourceType: 2, image: '' };
  if (extension === 'pdf') return { resourceType: 3, image: '' };
  return { resourceType: 0, image: '' };
}

/** The lower-cased extension of the path's last segment, ignoring query and fragment; '' if none. */
function extensionOf(resourceUrl: string): string {
  const path = resourceUrl.split(/[?#]/, 1)[0] ?? '';
  const lastSegment = path.slice(path.lastIndexOf('/') + 1);
  const dot = lastSegment.lastIndexOf('.');
  return dot <= 0 ? '' : lastSegment.slice(dot + 1).toLowerCase();
}

/**
 * A link as a URL. People paste links without a scheme ("youtu.be/abc"), so a bare host is read
 * as https; a stored upload path ("resource_files/x/a.png") has no dot in its first segment and
 * is not a link.
 */
function parseLink(resourceUrl: string): URL | null {
  const trimmed = resourceUrl.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)
    ? trimmed
    : /^(www\.|m\.)?[a-z0-9-]+\.[a-z]{2,}\//i.test(trimmed)
      ? `https://${trimmed}`
      : null;
  if (withScheme === null) return null;
  try {
    const url = new URL(withScheme);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

const hostIs = (url: URL, domain: string): boolean => {
  const host = url.hostname.toLowerCase();
  return host === domain || host.endsWith(`.${domain}`);
};

const YOUTUBE_ID = /^[A-Za-z0-9_-]{6,}$/;

/** youtube.com/watch?v=ID, youtu.be/ID, youtube.com/embed/ID, youtube.com/shorts/ID. */
function youtubeVideoId(url: URL): string | null {
  const segments = url.pathname.split('/').filter((s) => s !== '');
  let candidate: string | null | undefined = null;
  if (hostIs(url, 'youtu.be')) candidate = segments[0];
  else if (hostIs(url, 'youtube.com')) {
    if (segments.length === 1 && segments[0] === 'watch') candidate = url.searchParams.get('v');
    else if (segments.length >= 2 && (segments[0] === 'embed' || segments[0] === 'shorts')) candidate = segments[1];
  }
  return candidate && YOUTUBE_ID.test(candidate) ? candidate : null;
}

/** vimeo.com/<digits> (and the player's vimeo.com/video/<digits>). */
function isVimeoVideo(url: URL): boolean {
  if (!hostIs(url, 'vimeo.com')) return false;
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const id = segments[0] === 'video' ? segments[1] : segments[0];
  return id !== undefined && /^\d+$/.test(id);
}
