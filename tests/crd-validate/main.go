// crd-validate runs the CustomResourceDefinition create path of the
// kube-apiserver release this module pins (k8s.io/apiextensions-apiserver),
// without a server, on every file given:
//
//	crd-validate charts/quarterdeck/crds/*.yaml
//
// Each CRD is decoded strictly (a field that release does not know is an
// error, where the server would drop it with a warning), converted to the
// internal type, prepared for create (which drops fields behind feature gates
// that are off by default: reported, because the server would silently lose
// them) and validated as the server validates it: structural schema, list and
// map types, defaults, and every x-kubernetes-validations rule compiled with
// its cost estimated against the per-rule and per-CRD budgets.
package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: crd-validate FILE...")
		os.Exit(2)
	}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	strategy := customresourcedefinition.NewStrategy(scheme)

	failed := false
	for _, path := range os.Args[1:] {
		problems, err := validate(scheme, strategy, path)
		if err != nil {
			problems = []string{err.Error()}
		}
		for _, problem := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", path, problem)
		}
		failed = failed || len(problems) > 0
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("%d CRD file(s) pass the CustomResourceDefinition create validation of Kubernetes %s\n",
		len(os.Args)-1, kubernetesVersion())
}

// The create path of the CustomResourceDefinition registry.
type createStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

func validate(scheme *runtime.Scheme, strategy createStrategy, path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var external apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &external); err != nil {
		return nil, fmt.Errorf("not a CustomResourceDefinition this release reads: %w", err)
	}
	if external.APIVersion != "apiextensions.k8s.io/v1" || external.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("apiVersion %q kind %q is not an apiextensions.k8s.io/v1 CustomResourceDefinition", external.APIVersion, external.Kind)
	}
	scheme.Default(&external)
	var crd apiextensions.CustomResourceDefinition
	if err := scheme.Convert(&external, &crd, nil); err != nil {
		return nil, fmt.Errorf("converting to the internal type: %w", err)
	}

	ctx := request.WithNamespace(context.Background(), "")
	submitted := crd.Spec.DeepCopy()
	strategy.PrepareForCreate(ctx, &crd)
	var problems []string
	if !reflect.DeepEqual(submitted, &crd.Spec) {
		problems = append(problems, "the server drops part of the spec on create (a field behind a feature gate that is off by default)")
	}
	for _, err := range strategy.Validate(ctx, &crd) {
		problems = append(problems, err.Error())
	}
	return problems, nil
}

// The Kubernetes release of the validation code: 1.x.y for apiextensions-apiserver v0.x.y.
func kubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/apiextensions-apiserver" {
				return "1" + strings.TrimPrefix(dep.Version, "v0")
			}
		}
	}
	return "(unknown)"
}
