import { createSocket, type RemoteInfo } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | number;
}

/** A server-side failure instead of an answer: an error response code, or no response at all. */
export type DnsFailure = { rcode: 'SERVFAIL' | 'REFUSED' } | { silent: true };

/**
 * Answers per name: a fixed list of addresses (A and AAAA are picked by family; `[]` is a name with no address,
 * NOERROR without answers), a function called per query with how many times the name was asked before (for
 * rebinding tests), or a failure. Unknown names get NXDOMAIN.
 */
export type DnsAnswers = Record<
  string,
  readonly string[] | ((query: DnsQuery, count: number) => readonly string[]) | DnsFailure
>;

const RCODES = { SERVFAIL: 2, REFUSED: 5 } as const;

export interface DnsServer {
  /** `127.0.0.1:<port>`, the form `dnsServer` takes. */
  address: string;
  port: number;
  queries: DnsQuery[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function readName(message: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let offset = start;
  for (let length = message[offset] ?? 0; length !== 0; length = message[offset] ?? 0) {
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: offset + 1 };
}

function encodeAddress(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  const { hostname } = new URL(`http://[${address}]/`);
  const [head = '', tail] = hostname.slice(1, -1).split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => {
    bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  });
  return bytes;
}

/** A tiny UDP DNS server on 127.0.0.1 answering A/AAAA questions from a map, recording every query. */
export async function startDnsServer(answers: DnsAnswers): Promise<DnsServer> {
  const queries: DnsQuery[] = [];
  const counts = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (message: Buffer, remote: RemoteInfo) => {
    if (message.length < 12) return;
    const { name, end } = readName(message, 12);
    const typeCode = message.readUInt16BE(end);
    const type = typeCode === TYPE_A ? 'A' : typeCode === TYPE_AAAA ? 'AAAA' : typeCode;
    const query: DnsQuery = { name, type };
    queries.push(query);
    const answer = answers[name];
    if (answer !== undefined && 'silent' in answer) return;
    const failure = answer !== undefined && 'rcode' in answer ? RCODES[answer.rcode] : undefined;
    const entry = failure === undefined ? (answer as Exclude<typeof answer, DnsFailure>) : [];
    const count = counts.get(`${name}/${type}`) ?? 0;
    counts.set(`${name}/${type}`, count + 1);
    const addresses = typeof entry === 'function' ? entry(query, count) : (entry ?? []);
    const matching = addresses.filter((address) =>
      type === 'A' ? isIPv4(address) : type === 'AAAA' && isIPv6(address),
    );
    const question = message.subarray(12, end + 4);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0); // id
    // response, RD, RA; NXDOMAIN (3) when unknown, or the failure's code
    header.writeUInt16BE(0x8180 | (failure ?? (entry === undefined ? 3 : 0)), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(matching.length, 6);
    const records = matching.map((address) => {
      const data = encodeAddress(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // pointer to the question name
      record.writeUInt16BE(typeCode, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(1, 6); // TTL 1 s
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, question, ...records]), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    port,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
