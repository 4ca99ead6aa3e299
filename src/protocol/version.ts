import { A2AError } from "./a2a-error.js";

/** The protocol versions this server speaks (§3.6: Major.Minor). */
export type A2AVersion = "1.0" | "0.3";

/** Every version accepted in A2A-Version, newest first. */
export const SUPPORTED_VERSIONS: readonly A2AVersion[] = ["1.0", "0.3"];

/** §3.2.6: the version service parameter, as an HTTP header (§9.2, §11.2) or query parameter (§3.6.1). */
export const VERSION_HEADER = "A2A-Version";

/** §3.2.6: the extensions service parameter, as an HTTP header (§9.2, §11.2). */
export const EXTENSIONS_HEADER = "A2A-Extensions";

/**
 * The version named by an A2A-Version value; see the binding's `requestedVersion`.
 * `supported` is what the interface at hand speaks (§3.6.2 "not supported
 * by the interface"): a version outside it is VersionNotSupported.
 */
export function parseVersion(raw: string | undefined, supported: readonly A2AVersion[] = SUPPORTED_VERSIONS): A2AVersion | undefined {
  const value = raw?.trim() ?? "";
  if (value === "") return undefined;
  const version = knownVersion(value);
  if (version !== undefined && supported.includes(version)) return version;
  throw new A2AError("VersionNotSupported", `A2A-Version ${JSON.stringify(value)} is not supported; supported versions: ${supported.join(", ")}`, {
    metadata: { requestedVersion: value, supportedVersions: supported.join(",") },
  });
}

/** Major.Minor of a version string this server knows at all, ignoring a patch part (§3.6). */
function knownVersion(value: string): A2AVersion | undefined {
  const m = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(value);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = m[2] === undefined ? undefined : Number(m[2]);
  if (major === 1 && (minor === undefined || minor === 0)) return "1.0";
  if (major === 0 && minor === 3) return "0.3";
  return undefined;
}

/** §3.2.6: the comma-separated extension URIs of an A2A-Extensions value. */
export function parseExtensions(raw: string | undefined): string[] {
  const seen = new Set<string>();
  for (const item of (raw ?? "").split(",")) {
    const uri = item.trim();
    if (uri) seen.add(uri);
  }
  return [...seen];
}
