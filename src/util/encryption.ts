import crypto from 'node:crypto';
import path from 'node:path';
import type { AppConfig } from '../config';
import { readOrCreateSecretFile } from './paths';

/**
 * Secrets that must be read back (webhook signing secrets, terminal credentials, KYB documents) are stored encrypted
 * with AES-256-GCM under the master key: PAYPLANE_MASTER_KEY (32 bytes, base64), or for the sandbox a key
 * generated once into <home>/master-key. Format: v1:<iv>:<tag>:<ciphertext>, each base64.
 */
export class Sealer {
  private keyBuffer: Buffer | undefined;
  private readonly macKeys = new Map<string, Buffer>();

  /** The key is read on first use, so commands that never touch a sealed secret never create one. */
  constructor(private readonly loadKey: () => Buffer) {}

  private get key(): Buffer {
    if (!this.keyBuffer) {
      const key = this.loadKey();
      if (key.length !== 32) throw new Error('the master key must be 32 bytes');
      this.keyBuffer = key;
    }
    return this.keyBuffer;
  }

  seal(plaintext: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}`;
  }

  /**
   * A keyed hash (HMAC-SHA256, hex) of `data` under a key derived from the master key with HKDF for `purpose`
   * (card fingerprints, capability tokens): stable for one master key, useless without it, and never reversible.
   */
  mac(purpose: string, data: string): string {
    let key = this.macKeys.get(purpose);
    if (!key) {
      key = Buffer.from(crypto.hkdfSync('sha256', this.key, Buffer.alloc(0), Buffer.from(`payplane:mac:${purpose}`, 'utf8'), 32));
      this.macKeys.set(purpose, key);
    }
    return crypto.createHmac('sha256', key).update(data, 'utf8').digest('hex');
  }

  /**
   * Bytes sealed the same way, kept as bytes (KYB documents): SEALED_BYTES_MAGIC, the 12-byte IV, the 16-byte tag,
   * then the ciphertext. `context` (a record id) is authenticated with it, so sealed bytes moved to another record
   * do not open.
   */
  sealBytes(plaintext: Buffer, context: string): Buffer {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([SEALED_BYTES_MAGIC, iv, cipher.getAuthTag(), body]);
  }

  /** The bytes sealed by sealBytes under the same context; throws when they were altered or the context differs. */
  openBytes(sealed: Buffer, context: string): Buffer {
    if (!isSealedBytes(sealed)) throw new Error('not sealed bytes');
    const start = SEALED_BYTES_MAGIC.length;
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, sealed.subarray(start, start + 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.subarray(start + 12, start + 28));
    return Buffer.concat([decipher.update(sealed.subarray(start + 28)), decipher.final()]);
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** The leading bytes of sealed bytes (no PDF, PNG or JPEG starts so). */
export const SEALED_BYTES_MAGIC = Buffer.from('PPSEAL1\0', 'latin1');

export function isSealedBytes(bytes: Buffer): boolean {
  return bytes.length >= SEALED_BYTES_MAGIC.length + 28 && bytes.subarray(0, SEALED_BYTES_MAGIC.length).equals(SEALED_BYTES_MAGIC);
}

/** PAYPLANE_MASTER_KEY as a key, or null when it is not 32 bytes of base64. */
export function decodeMasterKey(value: string): Buffer | null {
  const key = Buffer.from(value, 'base64');
  return key.length === 32 ? key : null;
}

/** The key generated once into the home when PAYPLANE_MASTER_KEY is not set (the sandbox). */
export function masterKeyFile(config: AppConfig): string {
  return path.join(config.home, 'master-key');
}

export function loadMasterKey(config: AppConfig): Buffer {
  const configured = process.env.PAYPLANE_MASTER_KEY;
  if (configured) {
    const key = decodeMasterKey(configured);
    if (!key) throw new Error('PAYPLANE_MASTER_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32)');
    return key;
  }
  return Buffer.from(
    readOrCreateSecretFile(masterKeyFile(config), () => crypto.randomBytes(32).toString('base64')),
    'base64',
  );
}
