package manifest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// TestStores: stores: in policy.yaml names buckets and the environment
// variables their keys are in; a key written in the file is refused at its
// line, without repeating it.
func TestStores(t *testing.T) {
	const r2 = "stores:\n  - kind: s3\n    endpoint: https://acct.r2.cloudflarestorage.com/\n    bucket: taxkernel-archive\n    prefix: blobs/\n    region: auto\n    access_key_env: TAXKERNELBOT_S3_ACCESS_KEY\n    secret_key_env: TAXKERNELBOT_S3_SECRET_KEY\n"
	wantR2 := policy.Store{Kind: "s3", Endpoint: "https://acct.r2.cloudflarestorage.com", Bucket: "taxkernel-archive", Prefix: "blobs/", Region: "auto",
		Role: "mirror", AccessKeyEnv: "TAXKERNELBOT_S3_ACCESS_KEY", SecretKeyEnv: "TAXKERNELBOT_S3_SECRET_KEY"}
	const envs = "access_key_env: A, secret_key_env: S"
	for _, tc := range []struct {
		policy string
		want   []policy.Store
		diag   string // "" for none
	}{
		{policy: r2, want: []policy.Store{wantR2}},
		{policy: strings.Replace(r2, "    region: auto\n", "    region: auto\n    role: primary\n", 1), want: []policy.Store{func() policy.Store { s := wantR2; s.Role = "primary"; return s }()}},
		{policy: strings.Replace(r2, "    region: auto\n", "    region: auto\n    secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", 1),
			diag: "policy.yaml:7: secret_access_key must not be written in policy.yaml, which is public"},
		{policy: strings.Replace(r2, "    region: auto\n", "    region: auto\n    access_key: AKIAIOSFODNN7EXAMPLE\n", 1),
			diag: "policy.yaml:7: access_key must not be written in policy.yaml"},
		{policy: strings.Replace(r2, "TAXKERNELBOT_S3_ACCESS_KEY", "AKIAIOSFODNN7EXAMPLE", 1),
			diag: "policy.yaml:7: access_key_env looks like an access key itself"},
		{policy: strings.Replace(r2, "TAXKERNELBOT_S3_SECRET_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 1),
			diag: "policy.yaml:8: secret_key_env is not the name of an environment variable"},
		{policy: "stores:\n  - {kind: gcs, endpoint: https://storage.googleapis.com, bucket: b-1, " + envs + "}\n", diag: `store kind "gcs" is not one there is`},
		{policy: "stores:\n  - {kind: s3, endpoint: http://s3.example.com, bucket: b-1, " + envs + "}\n", diag: "must be https"},
		{policy: "stores:\n  - {kind: s3, endpoint: http://127.0.0.1:8333, bucket: b-1, " + envs + "}\n", diag: "must be https"},
		{policy: "allow_private_networks: true\nstores:\n  - {kind: s3, endpoint: http://127.0.0.1:8333, bucket: b-1, " + envs + "}\n",
			want: []policy.Store{{Kind: "s3", Endpoint: "http://127.0.0.1:8333", Bucket: "b-1", Role: "mirror", AccessKeyEnv: "A", SecretKeyEnv: "S"}}},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com/b-1, bucket: b-1, " + envs + "}\n", diag: "the bucket goes in bucket:"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: Taxkernel_Archive, " + envs + "}\n", diag: "is not a bucket name"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: b-1, prefix: blobs, " + envs + "}\n", diag: `prefix "blobs" must be folders ending in /`},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: b-1, prefix: a/../b/, " + envs + "}\n", diag: "must be folders ending in /"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: b-1, region: EU West, " + envs + "}\n", diag: "is not a region name"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: b-1, role: backup, " + envs + "}\n", diag: "write primary"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://s3.example.com, bucket: b-1, access_key_env: A}\n", diag: `store is missing "secret_key_env"`},
		{policy: "stores:\n  - {kind: s3, endpoint: https://a.example.com, bucket: b-1, role: primary, " + envs + "}\n  - {kind: s3, endpoint: https://b.example.com, bucket: b-1, role: primary, " + envs + "}\n",
			diag: "policy.yaml:3: a second store with role: primary (the first is at line 2)"},
		{policy: "stores:\n  - {kind: s3, endpoint: https://a.example.com, bucket: b-1, " + envs + "}\n  - {kind: s3, endpoint: https://a.example.com/, bucket: b-1, " + envs + "}\n",
			diag: "policy.yaml:3: store b-1/ at https://a.example.com is listed twice (first at line 2)"},
		{policy: "stores: {kind: s3}\n", diag: "stores must be a list"},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "policy.yaml", tc.policy)
		src := "https://www.gov.uk/rates" // private networks only with private sources
		if strings.Contains(tc.policy, "allow_private_networks") {
			src = "http://127.0.0.1:8080/rates"
		}
		writeFile(t, dir, "demo.yaml", "jurisdiction: demo\nname: Demo\ntimezone: UTC\nsources:\n  - {id: demo-rates, url: \""+src+"\", kind: gazette, title: Rates}\n")
		set, diags := Load(dir)
		var all []string
		for _, d := range diags {
			all = append(all, d.String())
		}
		joined := strings.Join(all, "\n")
		if tc.diag == "" && len(diags) > 0 || tc.diag != "" && !strings.Contains(joined, tc.diag) {
			t.Errorf("%q: diagnostics %q, want %q", tc.policy, joined, tc.diag)
		}
		for _, secret := range []string{"wJalrXUtnFEMI", "AKIAIOSFODNN7EXAMPLE"} {
			if strings.Contains(joined, secret) {
				t.Errorf("%q: a diagnostic repeats the key written in the file: %q", tc.policy, joined)
			}
		}
		if tc.diag == "" && (set == nil || !reflect.DeepEqual(set.Policy.Stores, tc.want)) {
			t.Errorf("%q: stores %+v, want %+v", tc.policy, set.Policy.Stores, tc.want)
		}
	}
}
