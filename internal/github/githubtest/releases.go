package githubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Release is a release as the fake keeps it.
type Release struct {
	ID                int64
	Tag, Name, Body   string
	Draft, Prerelease bool
	MakeLatest        string // as the create call sent it
	Assets            []Asset
}

// Asset is a release asset as the fake keeps it. State is "uploaded", or
// "open" for an upload that never finished: GitHub's description lists
// only these two (its prose, and its answers, also say "starter").
type Asset struct {
	ID    int64
	Name  string
	State string
	Data  []byte
	// Digest is "sha256:<hex>" of the bytes as uploaded (not changed by
	// SetAssetBytes), "" for an open asset.
	Digest string
}

func digest(state string, data []byte) string {
	if state != "uploaded" {
		return ""
	}
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// releases is the fake's release state: its releases, oldest first, and
// the two other hosts GitHub's release calls reach: the uploads host
// (uploads.github.com, named by a release's upload_url) and the storage a
// download redirects to.
type releases struct {
	list          []*Release
	nextID        int64
	uploads       *httptest.Server
	uploadsHost   string
	storage       *httptest.Server
	breakUploads  int
	storageAuthed []string // storage requests that carried a token
}

var (
	reReleases      = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/releases$`)
	reReleaseByTag  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/releases/tags/([^/]+)$`)
	reReleaseAssets = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/releases/(\d+)/assets$`)
	reReleaseAsset  = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/releases/assets/(\d+)$`)
	reStorage       = regexp.MustCompile(`^/download/(\d+)$`)
)

// startReleaseHosts starts the uploads host and the storage host.
func (f *Fake) startReleaseHosts() {
	f.rel.uploads = httptest.NewServer(Validating(f.t, http.HandlerFunc(f.serve)))
	f.t.Cleanup(f.rel.uploads.Close)
	f.rel.uploadsHost = strings.TrimPrefix(f.rel.uploads.URL, "http://")
	f.rel.storage = httptest.NewServer(http.HandlerFunc(f.serveStorage))
	f.t.Cleanup(f.rel.storage.Close)
}

// UploadsURL is the fake's uploads host, where release assets are sent.
func (f *Fake) UploadsURL() string { return f.rel.uploads.URL }

// Releases returns a copy of every release, oldest first.
func (f *Fake) Releases() []Release {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Release, len(f.rel.list))
	for i, r := range f.rel.list {
		out[i] = *r
		out[i].Assets = slices.Clone(r.Assets)
	}
	return out
}

// AddAsset puts an asset into the published release of tag (made when
// there is none): state "uploaded" for a whole one, "open" for what an
// interrupted upload leaves. It returns the asset's id.
func (f *Fake) AddAsset(tag, name, state string, data []byte) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.releaseByTag(tag)
	if r == nil {
		r = f.newRelease(tag, tag, "", true, "false")
	}
	f.rel.nextID++
	r.Assets = append(r.Assets, Asset{ID: f.rel.nextID, Name: name, State: state, Data: slices.Clone(data), Digest: digest(state, data)})
	return f.rel.nextID
}

// SetAssetBytes replaces the bytes of every asset named name, behind the
// API's back: a storage fault.
func (f *Fake) SetAssetBytes(name string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	found := false
	for _, r := range f.rel.list {
		for i := range r.Assets {
			if r.Assets[i].Name == name {
				r.Assets[i].Data, found = slices.Clone(data), true
			}
		}
	}
	if !found {
		f.t.Fatalf("githubtest: no asset named %s", name)
	}
}

// BreakNextUploads makes the next n uploads fail as GitHub's do on an
// upstream failure: 502, with an empty asset left in state "open" under
// the name.
func (f *Fake) BreakNextUploads(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rel.breakUploads = n
}

// StorageRequestsWithToken lists the downloads from storage that carried
// an Authorization header: the token must not leave the API's hosts.
func (f *Fake) StorageRequestsWithToken() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.rel.storageAuthed)
}

func (f *Fake) releaseByTag(tag string) *Release {
	for _, r := range f.rel.list {
		if r.Tag == tag {
			return r
		}
	}
	return nil
}

func (f *Fake) newRelease(tag, name, body string, prerelease bool, latest string) *Release {
	f.rel.nextID++
	r := &Release{ID: f.rel.nextID, Tag: tag, Name: name, Body: body, Prerelease: prerelease, MakeLatest: latest}
	f.rel.list = append(f.rel.list, r)
	return r
}

// assetName is what GitHub makes of an uploaded file's name: it renames
// special and non-alphanumeric characters and strips leading and trailing
// periods (its description says so without saying how; this replaces each
// such character by a period, as GitHub is seen to).
func assetName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '+') {
			b[i] = '.'
		}
	}
	out := strings.Trim(string(b), ".")
	if out == "" {
		out = "default"
	}
	return out
}

// serveReleases answers the release calls; it reports whether r was one.
// data is the raw body (an upload's bytes), body it decoded as JSON.
func (f *Fake) serveReleases(w http.ResponseWriter, r *http.Request, body map[string]any, data []byte) bool {
	mine := func(re *regexp.Regexp) []string {
		m := re.FindStringSubmatch(r.URL.Path)
		if m == nil || m[1] != f.Owner || m[2] != f.Repo {
			return nil
		}
		return m
	}
	onUploads := r.Host == f.rel.uploadsHost
	var m []string
	switch {
	case onUploads && r.Method == "POST" && mine(reReleaseAssets) != nil:
		f.upload(w, r, mine(reReleaseAssets)[3], data)
	case onUploads:
		f.t.Errorf("githubtest: %s %s sent to the uploads host, which takes only asset uploads", r.Method, r.URL.Path)
		f.reply(w, http.StatusNotFound, Error("Not Found"))
	case r.Method == "GET" && mine(reReleases) != nil:
		out := []any{}
		for i := len(f.rel.list) - 1; i >= 0; i-- { // newest first
			out = append(out, f.releaseObject(f.rel.list[i]))
		}
		f.page(w, r, out)
	case r.Method == "POST" && mine(reReleases) != nil:
		tag := fmt.Sprint(body["tag_name"])
		if f.releaseByTag(tag) != nil {
			f.reply(w, http.StatusUnprocessableEntity, map[string]any{
				"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/releases/releases#create-a-release",
				"errors": []any{map[string]any{"resource": "Release", "code": "already_exists", "field": "tag_name"}},
			})
			return true
		}
		str := func(k string) string { s, _ := body[k].(string); return s }
		pre, _ := body["prerelease"].(bool)
		rel := f.newRelease(tag, str("name"), str("body"), pre, str("make_latest"))
		rel.Draft, _ = body["draft"].(bool)
		w.Header().Set("Location", f.objects().repoAPI()+"/releases/"+strconv.FormatInt(rel.ID, 10))
		f.reply(w, http.StatusCreated, f.releaseObject(rel))
	case r.Method == "GET" && mine(reReleaseByTag) != nil:
		rel := f.releaseByTag(mine(reReleaseByTag)[3])
		if rel == nil || rel.Draft { // "a published release with the specified tag"
			f.reply(w, http.StatusNotFound, Error("Not Found"))
			return true
		}
		f.reply(w, http.StatusOK, f.releaseObject(rel))
	case r.Method == "GET" && mine(reReleaseAssets) != nil:
		id, _ := strconv.ParseInt(mine(reReleaseAssets)[3], 10, 64)
		out := []any{}
		for _, rel := range f.rel.list {
			if rel.ID == id {
				for _, a := range rel.Assets {
					out = append(out, f.assetObject(rel.Tag, a))
				}
			}
		}
		f.page(w, r, out)
	case mine(reReleaseAsset) != nil:
		m = mine(reReleaseAsset)
		id, _ := strconv.ParseInt(m[3], 10, 64)
		rel, i := f.asset(id)
		if rel == nil {
			f.reply(w, http.StatusNotFound, Error("Not Found"))
			return true
		}
		switch r.Method {
		case "GET":
			if r.Header.Get("Accept") == "application/octet-stream" {
				// GitHub redirects to its storage (it may also stream the
				// bytes itself: clients handle both).
				w.Header().Set("Location", f.rel.storage.URL+"/download/"+m[3])
				w.WriteHeader(http.StatusFound)
				return true
			}
			f.reply(w, http.StatusOK, f.assetObject(rel.Tag, rel.Assets[i]))
		case "DELETE":
			rel.Assets = slices.Delete(rel.Assets, i, i+1)
			w.WriteHeader(http.StatusNoContent)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

func (f *Fake) asset(id int64) (*Release, int) {
	for _, rel := range f.rel.list {
		for i, a := range rel.Assets {
			if a.ID == id {
				return rel, i
			}
		}
	}
	return nil, -1
}

func (f *Fake) upload(w http.ResponseWriter, r *http.Request, releaseID string, data []byte) {
	id, _ := strconv.ParseInt(releaseID, 10, 64)
	var rel *Release
	for _, x := range f.rel.list {
		if x.ID == id {
			rel = x
		}
	}
	if rel == nil {
		f.reply(w, http.StatusNotFound, Error("Not Found"))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct == "" {
		f.t.Errorf("githubtest: upload without a Content-Type, which GitHub requires")
	}
	if r.ContentLength != int64(len(data)) {
		f.t.Errorf("githubtest: upload with Content-Length %d but %d bytes", r.ContentLength, len(data))
	}
	name := assetName(r.URL.Query().Get("name"))
	if slices.ContainsFunc(rel.Assets, func(a Asset) bool { return a.Name == name }) {
		// GitHub's description gives the 422 no body; GitHub sends its
		// validation error.
		f.reply(w, http.StatusUnprocessableEntity, map[string]any{
			"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/releases/assets#upload-a-release-asset",
			"errors": []any{map[string]any{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}},
		})
		return
	}
	f.rel.nextID++
	a := Asset{ID: f.rel.nextID, Name: name, State: "uploaded", Data: data, Digest: digest("uploaded", data)}
	if f.rel.breakUploads > 0 {
		f.rel.breakUploads--
		a.State, a.Data, a.Digest = "open", nil, ""
		rel.Assets = append(rel.Assets, a)
		f.reply(w, http.StatusBadGateway, Error("Bad Gateway"))
		return
	}
	rel.Assets = append(rel.Assets, a)
	f.reply(w, http.StatusCreated, f.assetObject(rel.Tag, a))
}

// page answers one page of list as GitHub paginates: per_page (default
// 30, at most 100) and page, with a Link header to the next and last.
func (f *Fake) page(w http.ResponseWriter, r *http.Request, list []any) {
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	last := max((len(list)+per-1)/per, 1)
	link := func(p int) string {
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return "<" + f.URL + r.URL.Path + "?" + q.Encode() + ">"
	}
	if page < last {
		w.Header().Set("Link", link(page+1)+`; rel="next", `+link(last)+`; rel="last"`)
	}
	lo, hi := min((page-1)*per, len(list)), min(page*per, len(list))
	f.reply(w, http.StatusOK, append([]any{}, list[lo:hi]...))
}

var rePublicDownload = regexp.MustCompile(`^/([^/]+)/([^/]+)/releases/download/([^/]+)/([^/]+)$`)

// publicDownload answers an asset's browser_download_url as github.com
// does, to anyone: a redirect to the storage host for an uploaded asset
// of a published release, 404 otherwise. It says whether r was one.
func (f *Fake) publicDownload(w http.ResponseWriter, r *http.Request) bool {
	m := rePublicDownload.FindStringSubmatch(r.URL.Path)
	if r.Method != "GET" || m == nil || m[1] != f.Owner || m[2] != f.Repo {
		return false
	}
	for _, rel := range f.rel.list {
		if rel.Tag != m[3] || rel.Draft {
			continue
		}
		for _, a := range rel.Assets {
			if a.Name == m[4] && a.State == "uploaded" {
				w.Header().Set("Location", f.rel.storage.URL+"/download/"+strconv.FormatInt(a.ID, 10))
				w.WriteHeader(http.StatusFound)
				return true
			}
		}
	}
	http.NotFound(w, r)
	return true
}

func (f *Fake) serveStorage(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a := r.Header.Get("Authorization"); a != "" {
		f.rel.storageAuthed = append(f.rel.storageAuthed, r.URL.Path)
	}
	m := reStorage.FindStringSubmatch(r.URL.Path)
	if r.Method != "GET" || m == nil {
		http.NotFound(w, r)
		return
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	rel, i := f.asset(id)
	if rel == nil || rel.Assets[i].State != "uploaded" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(rel.Assets[i].Data)))
	w.Write(rel.Assets[i].Data)
}

func (f *Fake) releaseObject(r *Release) map[string]any {
	o := f.objects()
	api := o.repoAPI() + "/releases/" + strconv.FormatInt(r.ID, 10)
	assets := []any{}
	for _, a := range r.Assets {
		assets = append(assets, f.assetObject(r.Tag, a))
	}
	var published any = stamp(int(r.ID))
	if r.Draft {
		published = nil
	}
	return map[string]any{
		"id": r.ID, "node_id": nodeID("RE", int(r.ID)), "url": api, "html_url": o.Web + "/" + o.Owner + "/" + o.Repo + "/releases/tag/" + r.Tag,
		"assets_url":  api + "/assets",
		"upload_url":  f.rel.uploads.URL + "/repos/" + o.Owner + "/" + o.Repo + "/releases/" + strconv.FormatInt(r.ID, 10) + "/assets{?name,label}",
		"tarball_url": o.repoAPI() + "/tarball/" + r.Tag, "zipball_url": o.repoAPI() + "/zipball/" + r.Tag,
		"tag_name": r.Tag, "target_commitish": "main", "name": r.Name, "body": r.Body,
		"draft": r.Draft, "prerelease": r.Prerelease, "created_at": stamp(int(r.ID)), "published_at": published,
		"author": o.User(Bot), "assets": assets,
	}
}

// assetObject is a as GitHub describes it, in the release tagged tag: its
// browser_download_url names the tag, as GitHub's do.
func (f *Fake) assetObject(tag string, a Asset) map[string]any {
	o := f.objects()
	var digest any
	if a.Digest != "" {
		digest = a.Digest
	}
	return map[string]any{
		"id": a.ID, "node_id": nodeID("RA", int(a.ID)), "name": a.Name, "label": nil, "state": a.State,
		"content_type": "application/octet-stream", "size": len(a.Data), "digest": digest, "download_count": 0,
		"url":                  o.repoAPI() + "/releases/assets/" + strconv.FormatInt(a.ID, 10),
		"browser_download_url": o.Web + "/" + o.Owner + "/" + o.Repo + "/releases/download/" + url.PathEscape(tag) + "/" + a.Name,
		"uploader":             o.User(Bot), "created_at": stamp(int(a.ID)), "updated_at": stamp(int(a.ID)),
	}
}
