package manifest

import (
	"net/url"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

var storeKeys = []string{"kind", "endpoint", "bucket", "prefix", "region", "role", "access_key_env", "secret_key_env"}

// secretStoreKeys are the keys a credential would be written under, each
// with the key that names its environment variable instead: policy.yaml is
// public, so a key written there is refused, not ignored.
var secretStoreKeys = map[string]string{
	"access_key": "access_key_env", "access_key_id": "access_key_env", "aws_access_key_id": "access_key_env", "key_id": "access_key_env",
	"secret_key": "secret_key_env", "secret_access_key": "secret_key_env", "aws_secret_access_key": "secret_key_env", "secret": "secret_key_env",
	"application_key": "secret_key_env", "session_token": "secret_key_env", "token": "secret_key_env", "password": "secret_key_env",
}

var (
	envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	// An AWS access key id (AKIA…, ASIA…) is also a valid variable name:
	// written as access_key_env it is the key itself, not where it is.
	awsKeyID   = regexp.MustCompile(`^(AKIA|ASIA|AROA|AIDA)[A-Z0-9]{12,}$`)
	bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	regionName = regexp.MustCompile(`^[a-z0-9-]+$`)
)

// stores reads stores: [{kind: s3, endpoint, bucket, prefix, region, role,
// access_key_env, secret_key_env}], the buckets the archive's bytes are
// kept in.
func (f *file) stores(e entry, allowPrivate bool) []policy.Store {
	if e.val.Kind != yaml.SequenceNode {
		f.errorf(e.val.Line, "stores must be a list of {kind: s3, endpoint, bucket, prefix, region, role, access_key_env, secret_key_env}")
		return nil
	}
	var out []policy.Store
	primary, seen := 0, map[string]int{}
	for _, item := range e.val.Content {
		st, ok := f.store(item, allowPrivate)
		if !ok {
			continue
		}
		where := st.Endpoint + " " + st.Bucket + "/" + st.Prefix
		if first, dup := seen[where]; dup {
			f.errorf(item.Line, "store %s/%s at %s is listed twice (first at line %d); keep one", st.Bucket, st.Prefix, st.Endpoint, first)
			continue
		}
		seen[where] = item.Line
		if st.Role == policy.RolePrimary {
			if primary != 0 {
				f.errorf(item.Line, "a second store with role: primary (the first is at line %d); the bytes are read from one primary, make this one a mirror", primary)
				continue
			}
			primary = item.Line
		}
		out = append(out, st)
	}
	return out
}

func (f *file) store(n *yaml.Node, allowPrivate bool) (policy.Store, bool) {
	if n.Kind == yaml.MappingNode {
		// A credential written in the file is named with what to write
		// instead, and left out of the keys checked below.
		kept := *n
		kept.Content = nil
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if instead, secret := secretStoreKeys[strings.ToLower(k.Value)]; secret && k.Kind == yaml.ScalarNode {
				f.errorf(k.Line, "%s must not be written in policy.yaml, which is public: remove it (and revoke the key if it was committed), keep the value in a repository secret, and write %s: with the name of the environment variable the workflow sets from it, e.g. %s",
					k.Value, instead, exampleEnv[instead])
				continue
			}
			kept.Content = append(kept.Content, k, n.Content[i+1])
		}
		n = &kept
	}
	fs, ok := f.mapping(n, "store", storeKeys)
	if !ok || !f.require(n, fs, "store", "kind", "endpoint", "bucket", "access_key_env", "secret_key_env") {
		return policy.Store{}, false
	}
	var st policy.Store
	ok = true
	get := func(key string) string {
		e, present := fs[key]
		if !present {
			return ""
		}
		s, good := f.str(e)
		ok = ok && good
		return s
	}
	st.Kind, st.Endpoint, st.Bucket, st.Prefix = get("kind"), get("endpoint"), get("bucket"), get("prefix")
	st.Region, st.Role = get("region"), get("role")
	st.AccessKeyEnv, st.SecretKeyEnv = get("access_key_env"), get("secret_key_env")
	if !ok {
		return st, false
	}
	line := func(key string) int { return fs[key].val.Line }
	if st.Kind != policy.StoreS3 {
		f.errorf(line("kind"), "store kind %q is not one there is: write s3 (an S3-compatible bucket: Cloudflare R2, Backblaze B2, AWS S3)", st.Kind)
		ok = false
	}
	u, err := url.Parse(st.Endpoint)
	switch {
	case err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/"):
		f.errorf(line("endpoint"), "store endpoint %q is not a server's URL; write scheme and host only, e.g. https://<account>.r2.cloudflarestorage.com (the bucket goes in bucket:)", st.Endpoint)
		ok = false
	case u.Scheme != "https" && !(u.Scheme == "http" && allowPrivate && policy.IsPrivateHost(u.Host)):
		f.errorf(line("endpoint"), "store endpoint %q must be https", st.Endpoint)
		ok = false
	default:
		st.Endpoint = u.Scheme + "://" + u.Host
	}
	if !bucketName.MatchString(st.Bucket) || strings.Contains(st.Bucket, "..") {
		f.errorf(line("bucket"), "store bucket %q is not a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, e.g. taxkernel-archive", st.Bucket)
		ok = false
	}
	if p := st.Prefix; p != "" && (strings.HasPrefix(p, "/") || !strings.HasSuffix(p, "/") || strings.Contains(p, "//") ||
		strings.Contains("/"+p, "/../") || strings.Contains("/"+p, "/./") || strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f })) {
		f.errorf(line("prefix"), "store prefix %q must be folders ending in /, not starting with one, e.g. blobs/", p)
		ok = false
	}
	if st.Region != "" && !regionName.MatchString(st.Region) {
		f.errorf(line("region"), "store region %q is not a region name: auto for R2, the bucket's region for B2 and AWS (e.g. us-west-004, eu-west-2)", st.Region)
		ok = false
	}
	switch st.Role {
	case "":
		st.Role = policy.RoleMirror
	case policy.RolePrimary, policy.RoleMirror:
	default:
		f.errorf(line("role"), "store role %q: write primary (the bytes are read from it) or mirror (a second copy)", st.Role)
		ok = false
	}
	for _, key := range []string{"access_key_env", "secret_key_env"} {
		v := get(key)
		switch {
		case awsKeyID.MatchString(v):
			f.errorf(line(key), "%s looks like an access key itself, and policy.yaml is public: revoke that key, keep it in a repository secret, and write here the name of the environment variable the workflow sets from it, e.g. %s", key, exampleEnv[key])
			ok = false
		case !envName.MatchString(v):
			// The value is not repeated: it may be the key itself.
			f.errorf(line(key), "%s is not the name of an environment variable (capitals, digits, _): write the variable's name, e.g. %s, never the key itself", key, exampleEnv[key])
			ok = false
		}
	}
	return st, ok
}

var exampleEnv = map[string]string{
	"access_key_env": "TAXKERNELBOT_S3_ACCESS_KEY",
	"secret_key_env": "TAXKERNELBOT_S3_SECRET_KEY",
}
