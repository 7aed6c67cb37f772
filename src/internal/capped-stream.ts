/**
 * Reading a byte stream to its end under a size cap, for bodies that come from the network: the
 * service's answers and webhook deliveries. Bytes are counted as they arrive, so an endless or
 * oversized body is never held whole.
 */

/**
 * Reads `stream` to its end, handing each chunk to `onChunk`. Past `max` bytes the stream is
 * cancelled and `false` is returned without handing over the chunk that crossed the cap; `true`
 * means the whole stream was read. A read error is thrown as it is.
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, max: number, onChunk: (chunk: Uint8Array) => void): Promise<boolean> {
  const reader = stream.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return false;
    }
    onChunk(value);
  }
}
