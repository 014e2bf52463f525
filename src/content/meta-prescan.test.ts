import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetFromMetaContent, prescanMetaCharset } from './meta-prescan.ts';

const prescan = (html: string) => prescanMetaCharset(new TextEncoder().encode(html));

test('<meta charset> in its spellings', () => {
  assert.equal(prescan('<meta charset="Shift_JIS">'), 'shift_jis');
  assert.equal(prescan("<META CHARSET='GBK'>"), 'gbk');
  assert.equal(prescan('<meta charset=koi8-r>'), 'koi8-r');
  assert.equal(prescan('<meta/charset=euc-kr>'), 'euc-kr');
  assert.equal(prescan('<meta\ncharset = " windows-1251 " >'), 'windows-1251');
  assert.equal(
    prescan('<!doctype html><html lang=ru><head><meta charset="koi8-r"><title>x</title>'),
    'koi8-r',
  );
});

test('<meta http-equiv="content-type" content="…charset=…"> needs the http-equiv', () => {
  assert.equal(prescan('<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">'), 'euc-jp');
  assert.equal(prescan('<meta content="text/html; charset=EUC-JP" http-equiv="content-type">'), 'euc-jp');
  assert.equal(prescan('<meta content="text/html; charset=EUC-JP">'), undefined);
  assert.equal(prescan('<meta http-equiv="refresh" content="0; charset=EUC-JP">'), undefined);
});

test('the first of charset and content wins inside one <meta>, duplicates are ignored', () => {
  assert.equal(prescan('<meta charset="big5" charset="gbk">'), 'big5');
  assert.equal(
    prescan('<meta http-equiv="content-type" content="text/html; charset=gbk" charset="big5">'),
    'big5',
  );
});

test('comments, other tags’ attributes, end tags and declarations are skipped', () => {
  assert.equal(prescan('<!-- <meta charset="koi8-r"> --><meta charset="big5">'), 'big5');
  assert.equal(prescan('<div title=\'<meta charset="koi8-r">\'><meta charset="gbk">'), 'gbk');
  assert.equal(
    prescan('<!DOCTYPE html><?xml-stylesheet <meta charset="x"?></p><meta charset="euc-kr">'),
    'euc-kr',
  );
  // `<!-->` is a whole comment: the <meta> after it counts.
  assert.equal(prescan('<!--><meta charset="shift_jis">'), 'shift_jis');
  assert.equal(prescan('<metadata charset="gbk"><meta charset="big5">'), 'big5');
});

test('only the first 1024 bytes are read', () => {
  assert.equal(prescan(`<!-- ${'x'.repeat(1000)} --><meta charset="gbk">`), undefined);
  assert.equal(
    prescanMetaCharset(new TextEncoder().encode(`${' '.repeat(1500)}<meta charset=gbk>`), 2048),
    'gbk',
  );
});

test('a <meta> naming no known encoding is passed over, and a later one still counts', () => {
  assert.equal(prescan('<meta charset="{charset}"><meta charset="windows-1251">'), 'windows-1251');
  assert.equal(prescan('<meta charset=""><meta charset="koi8-r">'), 'koi8-r');
  assert.equal(prescan('<meta charset="no-such-encoding">'), undefined);
});

test('unterminated markup at the end of the window does not throw', () => {
  for (const html of ['<meta', '<!--', '<div a="', '<meta http-equiv=', '<']) {
    assert.equal(prescan(html), undefined, html);
  }
});

test('charsetFromMetaContent: the content attribute algorithm', () => {
  assert.equal(charsetFromMetaContent('text/html; charset=utf-8'), 'utf-8');
  assert.equal(charsetFromMetaContent('text/html;charset="gbk"'), 'gbk');
  assert.equal(charsetFromMetaContent("text/html; CHARSET = 'koi8-r'"), 'koi8-r');
  assert.equal(charsetFromMetaContent('text/html; charset=big5; foo=bar'), 'big5');
  assert.equal(charsetFromMetaContent('text/html; charset="gbk'), undefined);
  assert.equal(charsetFromMetaContent('text/html'), undefined);
});
