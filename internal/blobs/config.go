package blobs

import (
	"fmt"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// Open is the backend a store of policy.yaml names. Its keys are read from
// the environment variables the store names, with getenv (os.LookupEnv),
// and from nowhere else.
func Open(st policy.Store, getenv func(string) (string, bool)) (Backend, error) {
	if st.Kind != policy.StoreS3 {
		return nil, fmt.Errorf("blobs: store kind %q is not one there is; policy.yaml's stores take kind: s3", st.Kind)
	}
	key := func(name, what string) (string, error) {
		v, ok := getenv(name)
		if !ok || v == "" {
			return "", fmt.Errorf("blobs: store s3:%s/%s: the environment variable %s, which policy.yaml names as its %s, is not set; set it from a repository secret (docs/setup.md, \"Where the archive's bytes are kept\")", st.Bucket, st.Prefix, name, what)
		}
		return v, nil
	}
	access, err := key(st.AccessKeyEnv, "access_key_env")
	if err != nil {
		return nil, err
	}
	secret, err := key(st.SecretKeyEnv, "secret_key_env")
	if err != nil {
		return nil, err
	}
	return NewS3(S3Config{Endpoint: st.Endpoint, Bucket: st.Bucket, Prefix: st.Prefix, Region: st.Region, AccessKey: access, SecretKey: secret})
}
