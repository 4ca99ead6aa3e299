/** One HTTP answer, body read in full. */
export interface HttpReply {
  readonly status: number;
  /** The media type of Content-Type, without parameters. */
  readonly type: string;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
}

/** Reads a fetch Response in full into an HttpReply. */
export async function readReply(res: Response): Promise<HttpReply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: mediaType(res), headers: res.headers, text, json };
}

/** The media type of a response's Content-Type, without parameters. */
export function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
}
