// Fixtures are encoded here with iconv-lite (an implementation independent of the TextDecoder that
// decodeBody uses) from real sentences, long enough for detection to have something to go on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { decodeBody } from './charset.ts';

const SENTENCES = {
  chinese:
    '中华人民共和国是世界上人口最多的国家之一，拥有悠久的历史和灿烂的文化。长城是中国古代最伟大的建筑工程之一，吸引了来自世界各地的游客。北京是中国的首都，也是政治和文化中心。',
  traditionalChinese:
    '臺灣位於東亞，是一個美麗的島嶼。臺北是臺灣最大的城市，擁有許多著名的建築與夜市。這裡的人們非常友善，歡迎來自世界各地的旅客。',
  japanese:
    '日本は東アジアに位置する島国であり、豊かな自然と長い歴史を持っています。東京は日本の首都であり、世界有数の大都市です。桜の季節には多くの人々が花見を楽しみます。',
  russian:
    'Москва является столицей Российской Федерации и крупнейшим городом страны. Город расположен на реке Москве и известен своими историческими памятниками, музеями и театрами.',
  korean:
    '대한민국은 동아시아의 한반도 남부에 위치한 나라이다. 수도는 서울이며, 서울은 정치와 경제와 문화의 중심지이다. 한국어는 한글이라는 고유한 문자로 표기한다.',
  german:
    'Die Größe der Bäume im südlichen Schwarzwald überrascht viele Besucher. Übrigens gehören die Bächlein und Wälder zu den schönsten Gegenden Deutschlands; außerdem ist das Klima mäßig.',
};

/** Encoding (as iconv-lite names it), the sentence, and the WHATWG name decodeBody must report. */
const LEGACY: Array<[encoding: string, text: string, charset: string]> = [
  ['gbk', SENTENCES.chinese, 'gbk'],
  ['gb18030', SENTENCES.chinese, 'gb18030'],
  ['big5', SENTENCES.traditionalChinese, 'big5'],
  ['shift_jis', SENTENCES.japanese, 'shift_jis'],
  ['euc-jp', SENTENCES.japanese, 'euc-jp'],
  ['euc-kr', SENTENCES.korean, 'euc-kr'],
  ['windows-1251', SENTENCES.russian, 'windows-1251'],
  ['koi8-r', SENTENCES.russian, 'koi8-r'],
  ['windows-1252', SENTENCES.german, 'windows-1252'],
];

const page = (charsetTag: string, text: string) =>
  `<!doctype html><html><head>${charsetTag}<title>Test</title></head><body><p>${text}</p></body></html>`;

for (const [encoding, text, charset] of LEGACY) {
  test(`${encoding}: the Content-Type charset decodes it`, () => {
    const decoded = decodeBody(iconv.encode(text, encoding), { headerCharset: encoding.toUpperCase() });
    assert.deepEqual(decoded, { text, charset, source: 'header' });
  });

  test(`${encoding}: <meta charset> alone decodes the page`, () => {
    const html = page(`<meta charset="${encoding}">`, text);
    const decoded = decodeBody(iconv.encode(html, encoding), { markup: 'html' });
    assert.deepEqual(decoded, { text: html, charset, source: 'meta' });
  });
}

test('<meta http-equiv="Content-Type" content="…; charset=…"> counts as well', () => {
  const html = page(
    '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
    SENTENCES.japanese,
  );
  const decoded = decodeBody(iconv.encode(html, 'shift_jis'), { markup: 'html' });
  assert.deepEqual(decoded, { text: html, charset: 'shift_jis', source: 'meta' });
});

// gbk bytes are detected as gb18030, its superset (same text); the rest by their own name.
const DETECTED: Array<[encoding: string, text: string, charset: string]> = [
  ['gbk', SENTENCES.chinese, 'gb18030'],
  ['big5', SENTENCES.traditionalChinese, 'big5'],
  ['shift_jis', SENTENCES.japanese, 'shift_jis'],
  ['euc-jp', SENTENCES.japanese, 'euc-jp'],
  ['euc-kr', SENTENCES.korean, 'euc-kr'],
  ['windows-1251', SENTENCES.russian, 'windows-1251'],
  ['koi8-r', SENTENCES.russian, 'koi8-r'],
  ['windows-1252', SENTENCES.german, 'windows-1252'],
];

for (const [encoding, text, charset] of DETECTED) {
  test(`${encoding}: a page with no charset anywhere is detected`, () => {
    const html = page('', text);
    const decoded = decodeBody(iconv.encode(html, encoding), { markup: 'html' });
    assert.deepEqual(decoded, { text: html, charset, source: 'detected' });
  });
}

test('ISO-2022-JP (7-bit with escapes) is detected, not read as ASCII', () => {
  // iconv-lite has no ISO-2022-JP encoder: JIS X 0208 is EUC-JP without the high bits, between escapes.
  const jis = [...iconv.encode(SENTENCES.japanese, 'euc-jp')].map((byte) => byte & 0x7f);
  const bytes = Uint8Array.from([0x1b, 0x24, 0x42, ...jis, 0x1b, 0x28, 0x42]);
  const decoded = decodeBody(bytes);
  assert.deepEqual(decoded, { text: SENTENCES.japanese, charset: 'iso-2022-jp', source: 'detected' });
});

test('ASCII and UTF-8 without a label are UTF-8', () => {
  assert.deepEqual(decodeBody(new TextEncoder().encode('plain ASCII text')), {
    text: 'plain ASCII text',
    charset: 'utf-8',
    source: 'default',
  });
  for (const text of Object.values(SENTENCES)) {
    assert.deepEqual(decodeBody(new TextEncoder().encode(text)), {
      text,
      charset: 'utf-8',
      source: 'detected',
    });
  }
});

test('BOMs win over everything, and are not part of the text', () => {
  const text = SENTENCES.russian;
  const cases: Array<[Uint8Array, string]> = [
    [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]), 'utf-8'],
    [Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]), 'utf-16le'],
    [Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf-16be')]), 'utf-16be'],
  ];
  for (const [bytes, charset] of cases) {
    const decoded = decodeBody(bytes, { headerCharset: 'windows-1251', markup: 'html' });
    assert.deepEqual(decoded, { text, charset, source: 'bom' }, charset);
  }
});

test('the header beats <meta>', () => {
  const html = page('<meta charset="koi8-r">', SENTENCES.russian);
  const decoded = decodeBody(iconv.encode(html, 'windows-1251'), {
    headerCharset: 'windows-1251',
    markup: 'html',
  });
  assert.deepEqual(decoded, { text: html, charset: 'windows-1251', source: 'header' });
});

test('an unknown header label is ignored and <meta> decides', () => {
  const html = page('<meta charset="euc-kr">', SENTENCES.korean);
  const decoded = decodeBody(iconv.encode(html, 'euc-kr'), { headerCharset: 'utf8mb4', markup: 'html' });
  assert.deepEqual(decoded, { text: html, charset: 'euc-kr', source: 'meta' });
});

test('header labels are resolved the WHATWG way (latin1, x-user-defined → windows-1252; gb2312 → gbk)', () => {
  const german = iconv.encode(SENTENCES.german, 'windows-1252');
  assert.equal(decodeBody(german, { headerCharset: 'latin1' }).charset, 'windows-1252');
  assert.equal(decodeBody(german, { headerCharset: 'x-user-defined' }).text, SENTENCES.german);
  assert.equal(decodeBody(german, { headerCharset: 'x-user-defined' }).charset, 'windows-1252');
  const chinese = decodeBody(iconv.encode(SENTENCES.chinese, 'gbk'), { headerCharset: 'GB2312' });
  assert.deepEqual(chinese, { text: SENTENCES.chinese, charset: 'gbk', source: 'header' });
});

test('<meta> names a legacy charset but the bytes are valid UTF-8: UTF-8 wins', () => {
  for (const [label, text] of [
    ['windows-1251', SENTENCES.russian],
    ['shift_jis', SENTENCES.japanese],
    ['iso-8859-1', SENTENCES.german],
  ] as const) {
    const html = page(`<meta charset="${label}">`, text);
    const decoded = decodeBody(new TextEncoder().encode(html), { markup: 'html' });
    assert.deepEqual(decoded, { text: html, charset: 'utf-8', source: 'detected' }, label);
  }
});

test('…but a charset the header names is obeyed even then (the deviation is for <meta> only)', () => {
  const bytes = new TextEncoder().encode('Größe');
  assert.deepEqual(decodeBody(bytes, { headerCharset: 'windows-1252' }), {
    text: 'GrÃ¶ÃŸe',
    charset: 'windows-1252',
    source: 'header',
  });
});

test('<meta charset=utf-8> on bytes that are not UTF-8 goes to detection', () => {
  const html = page('<meta charset="utf-8">', SENTENCES.chinese);
  const decoded = decodeBody(iconv.encode(html, 'gbk'), { markup: 'html' });
  assert.deepEqual(decoded, { text: html, charset: 'gb18030', source: 'detected' });
});

test('a UTF-16 label in <meta> means UTF-8 (the bytes were read as ASCII to find it)', () => {
  const html = page('<meta charset="utf-16">', 'café');
  const decoded = decodeBody(new TextEncoder().encode(html), { markup: 'html' });
  assert.equal(decoded.charset, 'utf-8');
  assert.equal(decoded.text, html);
});

test('a <meta> past the first 1024 bytes is not read', () => {
  const html = `<!doctype html><html><head><!-- ${'x'.repeat(1100)} --><meta charset="koi8-r"></head><body>${SENTENCES.russian}</body></html>`;
  const decoded = decodeBody(iconv.encode(html, 'windows-1251'), { markup: 'html' });
  assert.deepEqual(decoded, { text: html, charset: 'windows-1251', source: 'detected' });
});

test('<meta> is only read for HTML; XML reads its declaration instead', () => {
  const html = page('<meta charset="koi8-r">', SENTENCES.russian);
  assert.equal(decodeBody(iconv.encode(html, 'koi8-r'), { markup: undefined }).source, 'detected');
  const xml = `<?xml version="1.0" encoding="EUC-JP"?>\n<note><body>${SENTENCES.japanese}</body></note>`;
  assert.deepEqual(decodeBody(iconv.encode(xml, 'euc-jp'), { markup: 'xml' }), {
    text: xml,
    charset: 'euc-jp',
    source: 'meta',
  });
});

test('invalid UTF-8 becomes U+FFFD and never throws', () => {
  const bytes = Buffer.concat([
    Buffer.from('valid start, '),
    Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff, 0xfe]),
    Buffer.from(' valid end'),
  ]);
  const decoded = decodeBody(bytes, { headerCharset: 'utf-8' });
  assert.equal(decoded.charset, 'utf-8');
  assert.equal(
    decoded.text,
    'valid start, \ufffd(\ufffd\ufffd\ufffd(\ufffd\ufffd(\ufffd\ufffd\ufffd\ufffd valid end',
  );
});

test('UTF-8 with a few broken bytes (under 2%) stays UTF-8, the broken bytes as U+FFFD', () => {
  const text = SENTENCES.japanese.repeat(3);
  const bytes = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0xff]), Buffer.from(text, 'utf8')]);
  assert.deepEqual(decodeBody(bytes, { markup: 'html' }), {
    text: `${text}\ufffd${text}`,
    charset: 'utf-8',
    source: 'detected',
  });
});

test('random bytes decode to something without throwing', () => {
  let seed = 7;
  const bytes = Uint8Array.from({ length: 5000 }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed & 0xff;
  });
  for (const options of [{}, { headerCharset: 'utf-8' }, { markup: 'html' as const }]) {
    const decoded = decodeBody(bytes, options);
    assert.equal(typeof decoded.text, 'string');
    assert.ok(decoded.text.length > 0);
  }
});

test('detection reads the text, not the markup: 100 KB of inline CSS first, or every word in its own tag', () => {
  const style = `<style>${'.menu a:hover { color: #336699; text-decoration: underline }\n'.repeat(1700)}</style>`;
  for (const [encoding, text, charset] of DETECTED) {
    const padded = `<!doctype html><html><head>${style}</head><body><p>${text}</p></body></html>`;
    assert.deepEqual(
      decodeBody(iconv.encode(padded, encoding), { markup: 'html' }),
      { text: padded, charset, source: 'detected' },
      `${encoding} after CSS`,
    );
  }
  for (const [encoding, text, charset] of DETECTED.filter(([, text]) => text.includes(' '))) {
    const words = `<html><body>${text
      .split(' ')
      .map((word) => `<span class="w">${word}</span>`)
      .join(' ')}</body></html>`;
    assert.deepEqual(
      decodeBody(iconv.encode(words, encoding), { markup: 'html' }),
      { text: words, charset, source: 'detected' },
      `${encoding} word by word`,
    );
  }
});
