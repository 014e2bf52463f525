import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseContentType } from './content-type.ts';

test('media type lower-cased, charset as written (trimmed, unquoted)', () => {
  assert.deepEqual(parseContentType('text/html; charset=UTF-8'), { essence: 'text/html', charset: 'UTF-8' });
  assert.deepEqual(parseContentType('Text/HTML;Charset="Shift_JIS"'), {
    essence: 'text/html',
    charset: 'Shift_JIS',
  });
  assert.deepEqual(parseContentType('  application/json ; charset = utf-8 '), {
    essence: 'application/json',
    charset: 'utf-8',
  });
  assert.deepEqual(parseContentType('text/plain; format=flowed; charset=koi8-r; delsp=yes'), {
    essence: 'text/plain',
    charset: 'koi8-r',
  });
  assert.deepEqual(parseContentType('application/atom+xml;type=entry'), { essence: 'application/atom+xml' });
});

test('no header, a malformed one, or an empty charset', () => {
  assert.deepEqual(parseContentType(undefined), { essence: '' });
  assert.deepEqual(parseContentType(''), { essence: '' });
  assert.deepEqual(parseContentType('html'), { essence: '' });
  assert.deepEqual(parseContentType('text/html garbage'), { essence: '' });
  assert.deepEqual(parseContentType('text/html; charset='), { essence: 'text/html' });
  assert.deepEqual(parseContentType('text/html; charset=""'), { essence: 'text/html' });
  assert.deepEqual(parseContentType('; charset=gbk'), { essence: '', charset: 'gbk' });
});

test('a parameter that only ends in "charset" is not the charset', () => {
  assert.deepEqual(parseContentType('text/html; xcharset=gbk'), { essence: 'text/html' });
  assert.deepEqual(parseContentType('text/html; foo=bar; charset=big5'), {
    essence: 'text/html',
    charset: 'big5',
  });
});
