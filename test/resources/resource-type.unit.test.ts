import { detectResourceType } from '../../src/resources/resource-type';

describe('detectResourceType', () => {
  it.each([
    'resource_files/k3j/photo.png',
    'resource_files/k3j/photo.JPG',
    'https://example.org/a/b/pic.jpeg?width=300#top',
    'resource_files/x/scan.jfif',
    'anim.gif',
    'img.bmp',
    'img.webp',
    'img.tif',
    'img.TIFF',
    'favicon.ico',
  ])('given %s, then it is an image previewed by itself', (url) => {
    expect(detectResourceType(url)).toEqual({ resourceType: 1, image: url });
  });

  it.each([
    'clip.mp4',
    'clip.mkv',
    'clip.webm',
    'clip.mpeg',
    'clip.mpg',
    'clip.wmv',
    'clip.ogv',
    'clip.asf',
    'https://cdn.example.org/v/clip.MP4?token=1',
  ])('given the video file %s, then it is a video without preview', (url) => {
    expect(detectResourceType(url)).toEqual({ resourceType: 2, image: '' });
  });

  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtube.com/watch?v=dQw4w9WgXcQ&t=42s', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?feature=share&v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['youtu.be/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
  ])('given the YouTube link %s, then it is a video with its thumbnail', (url, id) => {
    expect(detectResourceType(url)).toEqual({
      resourceType: 2,
      image: `https://img.youtube.com/vi/${id}/hqdefault.jpg`,
    });
  });

  it.each(['https://vimeo.com/76979871', 'https://www.vimeo.com/76979871', 'https://player.vimeo.com/video/76979871'])(
    'given the Vimeo link %s, then it is a video without preview',
    (url) => {
      expect(detectResourceType(url)).toEqual({ resourceType: 2, image: '' });
    },
  );

  it.each(['resource_files/k3j/report.pdf', 'https://example.org/Report.PDF?download=1'])(
    'given %s, then it is a PDF',
    (url) => {
      expect(detectResourceType(url)).toEqual({ resourceType: 3, image: '' });
    },
  );

  it.each([
    'https://example.org/',
    'https://example.org/page',
    'resource_files/k3j/notes.docx',
    'https://example.org/download?file=photo.png', // the extension is in the query, not the path
    'https://example.org/files#photo.png',
    'https://www.youtube.com/', // no video id
    'https://www.youtube.com/channel/UC123456',
    'https://notyoutube.com/watch?v=dQw4w9WgXcQ',
    'https://vimeo.com/channels/staffpicks',
    'resource_files/k3j/.png',
    '',
  ])('given %p, then it is "other" without preview', (url) => {
    expect(detectResourceType(url)).toEqual({ resourceType: 0, image: '' });
  });

  describe('which pasted text is read as a link', () => {
    it.each([
      ['http as well as https', 'http://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      ['spaces around the link', '  https://youtu.be/dQw4w9WgXcQ \n'],
      ['spaces around a bare link', ' youtu.be/dQw4w9WgXcQ '],
      ['a bare link with another link in its query', 'youtu.be/dQw4w9WgXcQ?next=https://example.org/'],
    ])('given %s (%p), then it is the YouTube video', (_what, url) => {
      expect(detectResourceType(url)).toEqual({
        resourceType: 2,
        image: 'https://img.youtube.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      });
    });

    it.each([
      ['a scheme other than http and https', 'ftp://youtu.be/dQw4w9WgXcQ'],
      ['a bare host of three labels that are not www. or m.', 'music.m.youtube.com/watch?v=dQw4w9WgXcQ'],
    ])('given %s (%p), then it is not read as a link: "other"', (_what, url) => {
      expect(detectResourceType(url)).toEqual({ resourceType: 0, image: '' });
    });
  });

  describe('what counts as a video id', () => {
    it.each([
      ['a YouTube id with a character after it', 'https://youtu.be/dQw4w9WgXcQ!'],
      ['a YouTube id with a character before it', 'https://youtu.be/!dQw4w9WgXcQ'],
      ['a YouTube watch link with more path after watch', 'https://www.youtube.com/watch/more?v=dQw4w9WgXcQ'],
      ['a YouTube page other than watch with a v parameter', 'https://www.youtube.com/results?v=dQw4w9WgXcQ'],
      ['a Vimeo id with letters after the digits', 'https://vimeo.com/76979871abc'],
      ['a Vimeo id with letters before the digits', 'https://vimeo.com/abc76979871'],
      ['a numeric path on a host that is not Vimeo', 'https://example.org/76979871'],
    ])('given %s (%p), then it is "other" without preview', (_what, url) => {
      expect(detectResourceType(url)).toEqual({ resourceType: 0, image: '' });
    });
  });
});
