module dractl.test/oracle/yaml

go 1.26.0

require sigs.k8s.io/yaml v1.6.0 // as kubectl v0.37.2 and kubernetes v1.37.2 require

require go.yaml.in/yaml/v2 v2.4.4 // indirect; kubectl v0.37.2 and kubernetes v1.37.2 select this one (sigs.k8s.io/yaml asks v2.4.2)
